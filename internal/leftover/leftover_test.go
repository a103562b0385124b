package leftover

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRemoveSaysWhatStays: a temporary file or folder is removed, one
// already gone is no error, and one that cannot be removed is named in an
// error that tells the owner to remove it by hand.
func TestRemoveSaysWhatStays(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, ".config-1.yaml")
	folder := filepath.Join(dir, ".install-1")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(folder, "skill"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{file, folder, filepath.Join(dir, "never-there")} {
		if err := Remove(p); err != nil {
			t.Errorf("Remove(%s): %v", p, err)
		}
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", p, err)
		}
	}
	// RemoveAll refuses a path ending in "." whoever runs the test, root
	// included: it stands for a leftover that cannot be removed.
	stuck := filepath.Join(dir, "stuck") + string(filepath.Separator) + "."
	err := Remove(stuck)
	if err == nil || !strings.Contains(err.Error(), stuck) || !strings.Contains(err.Error(), "remove it by hand") {
		t.Errorf("Remove(%s) = %v, want an error naming it and what to do", stuck, err)
	}
}
