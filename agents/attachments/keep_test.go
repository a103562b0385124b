package attachments

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKeeperDropsTheOldestOverTheQuotaCH4: files are kept per chat under
// a plain name; the same file twice is kept once; past the quota the
// oldest go first, never the one just kept.
func TestKeeperDropsTheOldestOverTheQuotaCH4(t *testing.T) {
	root := t.TempDir()
	k := &Keeper{Dir: filepath.Join(root, "files"), Quota: 25}
	at := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	first, err := k.Keep("telegram:42", "../../etc/passwd", []byte("0123456789"), at)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(first, filepath.Join("files", "telegram_42")+string(filepath.Separator)) || !strings.HasSuffix(first, "-passwd") {
		t.Errorf("kept as %s, want a plain name in the chat's folder", first)
	}
	again, _ := k.Keep("telegram:42", "../../etc/passwd", []byte("0123456789"), at.Add(time.Hour))
	if again != first {
		t.Errorf("the same file again was kept as %s, not %s", again, first)
	}
	second, _ := k.Keep("telegram:42", "b.txt", []byte("abcdefghij"), at.Add(time.Minute))
	third, _ := k.Keep("telegram:42", "c.txt", []byte("ABCDEFGHIJ"), at.Add(2*time.Minute))
	for _, tc := range []struct {
		rel  string
		kept bool
	}{{first, false}, {second, true}, {third, true}} {
		_, err := os.Stat(filepath.Join(root, tc.rel))
		if (err == nil) != tc.kept {
			t.Errorf("%s kept: %v, want %v", tc.rel, err == nil, tc.kept)
		}
	}
	info, err := os.Stat(filepath.Join(root, third))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("a kept file's mode is %v (%v), want 0600", info.Mode(), err)
	}
}
