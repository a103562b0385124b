package appkey

import (
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
)

// TestNewKeyIsPrefixedRandomAndHashedM4: keys carry the jbk_ prefix, 256
// random bits in lowercase base32, differ every time, and hash to 64 hex
// digits.
func TestNewKeyIsPrefixedRandomAndHashedM4(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		k := NewKey()
		if !strings.HasPrefix(k, KeyPrefix) || len(k) != len(KeyPrefix)+52 {
			t.Fatalf("key %q: want %s and 52 base32 characters", k, KeyPrefix)
		}
		if strings.Trim(k[len(KeyPrefix):], "abcdefghijklmnopqrstuvwxyz234567") != "" {
			t.Fatalf("key %q has characters outside lowercase base32", k)
		}
		if seen[k] {
			t.Fatalf("key %q made twice", k)
		}
		seen[k] = true
		h := Hash(k)
		if len(h) != 64 || strings.Trim(h, "0123456789abcdef") != "" || h != Hash(k) || strings.Contains(h, k[len(KeyPrefix):]) {
			t.Fatalf("Hash(%q) = %q", k, h)
		}
	}
}

func TestParseScopeM4(t *testing.T) {
	for in, want := range map[string]Scope{"read": ScopeRead, "work": ScopeWork, "FULL": ScopeFull, " work ": ScopeWork} {
		if got, err := ParseScope(in); err != nil || got != want {
			t.Errorf("ParseScope(%q) = %q %v, want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "admin", "write", "readwork"} {
		if _, err := ParseScope(in); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "use read, work or full") {
			t.Errorf("ParseScope(%q): %v, want EINVALID use read, work or full", in, err)
		}
	}
}
