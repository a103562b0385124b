//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
)

// withUmask runs the rest of the test with umask 0, the loosest a service
// manager may hand jarvisbot; the old mask comes back at cleanup. The test
// using it must not run in parallel: the mask is the process's.
func withUmask0(t *testing.T) {
	t.Helper()
	old := syscall.Umask(0)
	t.Cleanup(func() { syscall.Umask(old) })
}

// wantMode fails the test for every existing path whose permission bits are
// not want.
func wantMode(t *testing.T, when string, want os.FileMode, paths ...string) {
	t.Helper()
	if len(paths) == 0 {
		t.Errorf("%s: no file to check", when)
	}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			t.Errorf("%s: %v", when, err)
			continue
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: %s has mode %#o, want %#o", when, p, got, want)
		}
	}
}

// TestDataPrivateX3ST1: under umask 0, with a data directory (and its
// keyring, wiki and skills folders) made 0755 beforehand and a database
// file made 0644, init tightens the folders to 0700 and the file to 0600;
// a running service's database, -wal and -shm files are 0600.
func TestDataPrivateX3ST1(t *testing.T) {
	withUmask0(t)
	e := newTestEnv(t)
	data := e.vars["JARVIS_DATA_DIR"]
	dirs := []string{data, filepath.Join(data, "keyring"), filepath.Join(data, "wiki"), filepath.Join(data, "skills")}
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		os.Chmod(d, 0o755)
	}
	db := filepath.Join(data, "jarvisbot.db")
	if err := os.WriteFile(db, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	e.mustJarvis(t, "", "init")
	wantMode(t, "after init", 0o700, dirs...)
	wantMode(t, "after init", 0o600, db)

	// A keyring folder loosened later is tightened by the next secrets
	// command; its files are the owner's alone.
	os.Chmod(dirs[1], 0o755)
	setSecret(t, e, "SOME_TOKEN", "value")
	wantMode(t, "after secrets set", 0o700, dirs[1])
	files, _ := filepath.Glob(filepath.Join(dirs[1], "*"))
	wantMode(t, "after secrets set", 0o600, files...)

	// The running service: the write-ahead log and shared memory exist
	// while it runs.
	os.Chmod(data, 0o755)
	withModel(t, e)
	withTelegram(t, e)
	out, stop := startServe(t, e)
	waitOutput(t, out, "jarvisbot is ready")
	wantMode(t, "while serving", 0o700, data)
	wantMode(t, "while serving", 0o600, db, db+"-wal", db+"-shm")
	stop()
}

// TestFreshDataPrivateX3ST1: on a machine with umask 0 and no data
// directory yet, a first serve or a first chat creates it 0700 and the
// database files 0600.
func TestFreshDataPrivateX3ST1(t *testing.T) {
	withUmask0(t)

	e := newTestEnv(t)
	withModel(t, e)
	withTelegram(t, e)
	out, stop := startServe(t, e)
	waitOutput(t, out, "jarvisbot is ready")
	data := e.vars["JARVIS_DATA_DIR"]
	db := filepath.Join(data, "jarvisbot.db")
	wantMode(t, "during a first serve", 0o700, data)
	wantMode(t, "during a first serve", 0o600, db, db+"-wal", db+"-shm")
	stop()

	e = newTestEnv(t)
	f := withModel(t, e)
	f.Push(fakellm.Step{Text: "Hello."})
	e.mustJarvis(t, "", "chat", "-m", "hi")
	data = e.vars["JARVIS_DATA_DIR"]
	db = filepath.Join(data, "jarvisbot.db")
	wantMode(t, "after a first chat", 0o700, data)
	wantMode(t, "after a first chat", 0o600, db)
}
