package app

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/clock"
)

// openTestInstallation is a one-off command's installation over a fresh
// data directory and its SQLite store, with no model and no config file.
func openTestInstallation(t *testing.T) *Installation {
	t.Helper()
	dir := t.TempDir()
	vars := map[string]string{
		"HOME":                    filepath.Join(dir, "home"),
		"XDG_CONFIG_HOME":         filepath.Join(dir, "config"),
		"XDG_DATA_HOME":           filepath.Join(dir, "data"),
		"JARVIS_DATA_DIR":         filepath.Join(dir, "jarvis"),
		"JARVIS_KEYRING_BACKEND":  "file",
		"JARVIS_KEYRING_PASSWORD": "test-passphrase",
	}
	env := &Env{Getenv: func(k string) string { return vars[k] }, Stderr: io.Discard,
		Clock: clock.NewFake(time.Date(2026, 12, 2, 12, 0, 0, 0, time.Local))}
	in, err := env.OpenInstallation(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = in.Close() })
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
