package app

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/app/apptest"
	"github.com/jarvisbot/jarvisbot/internal/clock"
)

// testEnv is an environment of its own (apptest.Vars, extra added) on
// a clock pinned to noon. A warning written to its stderr fails the
// test: use cases return theirs as values.
func testEnv(t *testing.T, extra map[string]string) *Env {
	t.Helper()
	vars := apptest.Vars(t)
	vars["JARVIS_MCP_INIT_TIMEOUT"] = "5s"
	maps.Copy(vars, extra)
	var warn strings.Builder
	t.Cleanup(func() {
		if warn.Len() > 0 {
			t.Errorf("warnings: %s", warn.String())
		}
	})
	return &Env{Getenv: func(k string) string { return vars[k] }, Stderr: &warn, Clock: clock.NewFake(apptest.Noon())}
}

// testInstallation is an installation of its own in a temporary folder:
// a SQLite store and a file keyring, no config file; extra adds to its
// environment.
func testInstallation(t *testing.T, extra map[string]string) *Installation {
	t.Helper()
	in, err := testEnv(t, extra).OpenInstallation(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := in.Close(); err != nil {
			t.Error(err)
		}
	})
	return in
}

// writeSkill writes a SKILL.md into dir/name.
func writeSkill(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, name), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name, "SKILL.md"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
