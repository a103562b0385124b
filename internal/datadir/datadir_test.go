//go:build unix

package datadir

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPrivateTightensX3: the data directory is created 0700; it and the
// folders named, when they exist with looser modes, are tightened keeping
// the owner's bits; a folder not there yet is not created, and a file is
// no folder and is left alone.
func TestPrivateTightensX3(t *testing.T) {
	parent := t.TempDir()
	data := filepath.Join(parent, "jarvisbot")
	if err := Private(data); err != nil {
		t.Fatal(err)
	}
	mode := func(p string) os.FileMode {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	if m := mode(data); m != 0o700 {
		t.Errorf("new data directory has mode %#o, want 0700", m)
	}
	loose, readable, file := filepath.Join(data, "skills"), filepath.Join(data, "wiki"), filepath.Join(data, "notes")
	for p, m := range map[string]os.FileMode{loose: 0o777, readable: 0o750} {
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(data, 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(data, "agents")
	if err := Private(data, loose, readable, file, missing); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{data, loose, readable} {
		if m := mode(p); m != 0o700 {
			t.Errorf("%s has mode %#o, want 0700", p, m)
		}
	}
	if m := mode(file); m != 0o644 {
		t.Errorf("the file %s has mode %#o, want it untouched (0644)", file, m)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("%s was created (%v)", missing, err)
	}
}
