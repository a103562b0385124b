// Package apptest gives a test an installation of its own: the
// environment that puts jarvisbot's config, data directory and file
// keyring in a temporary folder, with serve's listeners off, and the
// quiet hour the schedule's clock is pinned to. The app layer's tests and
// the command line's use the same one, so that both doors are tested on
// the same ground (X4: tests pass at any hour, side by side).
package apptest

import (
	"path/filepath"
	"testing"
	"time"
)

// Noon is the hour tests pin the clock to: no shipped skill comes due.
// It is a function, so that importing the package costs no start-up work.
func Noon() time.Time { return time.Date(2026, 12, 2, 12, 0, 0, 0, time.Local) }

// Vars is the environment of a fresh installation in t.TempDir(). The
// MCP endpoint for apps and the dashboard are off unless a test turns
// them on (on port 0), so tests run side by side.
func Vars(t testing.TB) map[string]string {
	t.Helper()
	dir := t.TempDir()
	return map[string]string{
		"HOME":                    filepath.Join(dir, "home"),
		"XDG_CONFIG_HOME":         filepath.Join(dir, "config"),
		"XDG_DATA_HOME":           filepath.Join(dir, "data"),
		"JARVIS_DATA_DIR":         filepath.Join(dir, "jarvis"),
		"JARVIS_KEYRING_BACKEND":  "file",
		"JARVIS_KEYRING_PASSWORD": "test-passphrase",
		"JARVIS_MCP_LISTEN":       "off",
		"JARVIS_WEB_LISTEN":       "off",
	}
}
