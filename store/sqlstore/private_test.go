//go:build unix

package sqlstore

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestDatabaseFilesPrivateX3: under umask 0 the database, its -wal and its
// -shm are created 0600, and a file loosened to 0644 is tightened when it
// is opened again. (Not parallel: the umask is the process's.)
func TestDatabaseFilesPrivateX3(t *testing.T) {
	sqliteOnly(t, "file permissions of the database file")
	old := syscall.Umask(0)
	t.Cleanup(func() { syscall.Umask(old) })
	path := filepath.Join(t.TempDir(), "data", "jarvisbot.db")
	check := func(when string) {
		t.Helper()
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			fi, err := os.Stat(p)
			if err != nil {
				t.Errorf("%s: %v", when, err)
			} else if perm := fi.Mode().Perm(); perm != 0o600 {
				t.Errorf("%s: %s mode %#o, want 0600", when, filepath.Base(p), perm)
			}
		}
	}
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	check("created")
	db.Close()
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	db = openTest(t, path)
	check("reopened after a chmod 644")
}
