package app

import (
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/clock"
)

// testEnv is an environment of its own: data, config and keyring in a
// temporary folder, the MCP surface and the dashboard off, noon on a
// fixed day.
func testEnv(t *testing.T) *Env {
	t.Helper()
	dir := t.TempDir()
	vars := map[string]string{
		"HOME":                    filepath.Join(dir, "home"),
		"XDG_CONFIG_HOME":         filepath.Join(dir, "config"),
		"XDG_DATA_HOME":           filepath.Join(dir, "data"),
		"JARVIS_DATA_DIR":         filepath.Join(dir, "jarvis"),
		"JARVIS_KEYRING_BACKEND":  "file",
		"JARVIS_KEYRING_PASSWORD": "test-passphrase",
		"JARVIS_MCP_LISTEN":       "off",
		"JARVIS_WEB_LISTEN":       "off",
	}
	noon := time.Date(2026, 12, 2, 12, 0, 0, 0, time.Local)
	return &Env{Getenv: func(k string) string { return vars[k] }, Stderr: io.Discard, Clock: clock.NewFake(noon)}
}

// openInstallation opens a fresh installation, closed when the test ends.
func openInstallation(t *testing.T) *Installation {
	t.Helper()
	in, err := testEnv(t).OpenInstallation(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	return in
}
