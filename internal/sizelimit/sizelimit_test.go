package sizelimit

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
)

// TestReadFileLimit: a file over its limit is refused with an EINVALID
// error naming the file, its size and the limit; a stream that never ends
// is cut at the limit; a file within it is read whole.
func TestReadFileLimit(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.json")
	big := filepath.Join(dir, "big.json")
	os.WriteFile(small, []byte("{}"), 0o600)
	os.WriteFile(big, make([]byte, 3<<10+5), 0o600)
	l := Limit{What: "an mcp.json", Max: 1 << 10, Hint: "is it the right file?"}

	if data, err := l.ReadFile(small); err != nil || string(data) != "{}" {
		t.Fatalf("small: %q %v", data, err)
	}
	_, err := l.ReadFile(big)
	if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Fatalf("big: %v, want EINVALID", err)
	}
	for _, want := range []string{big + " is too large", "3 KiB (3077 bytes)", "an mcp.json may be at most 1 KiB", "is it the right file?"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	var tl *TooLarge
	if !errors.As(err, &tl) || tl.Size != 3<<10+5 || strings.Contains(tl.Error(), big) {
		t.Errorf("cause: %#v", tl)
	}
	if _, err := l.ReadFile(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if _, err := l.ReadFile(dir); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("folder: %v", err)
	}
	// An endless stream stops at the limit.
	_, err = l.ReadAll(endless{}, "stdin")
	if err == nil || !strings.Contains(err.Error(), "stdin is too large: larger than 1 KiB, the most an mcp.json may be") {
		t.Errorf("endless: %v", err)
	}
}

type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

var _ io.Reader = endless{}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{900: "900 bytes", 1 << 10: "1 KiB", 256 << 10: "256 KiB", 1<<20 + 1<<19: "1.5 MiB", 3 << 30: "3 GiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
