package app

import (
	"maps"
	"path/filepath"
	"strings"
	"testing"
)

// testInstallation is an installation of its own in a temporary folder:
// a SQLite store and a file keyring, no config file; extra adds to its
// environment. A warning the use cases print fails the test.
func testInstallation(t *testing.T, extra map[string]string) *Installation {
	t.Helper()
	dir := t.TempDir()
	vars := map[string]string{
		"HOME":                    filepath.Join(dir, "home"),
		"XDG_CONFIG_HOME":         filepath.Join(dir, "config"),
		"XDG_DATA_HOME":           filepath.Join(dir, "data"),
		"JARVIS_DATA_DIR":         filepath.Join(dir, "jarvis"),
		"JARVIS_KEYRING_BACKEND":  "file",
		"JARVIS_KEYRING_PASSWORD": "test-passphrase",
		"JARVIS_MCP_INIT_TIMEOUT": "5s",
	}
	maps.Copy(vars, extra)
	var warn strings.Builder
	env := &Env{Getenv: func(k string) string { return vars[k] }, Stderr: &warn}
	in, err := env.OpenInstallation(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := in.Close(); err != nil {
			t.Error(err)
		}
		if warn.Len() > 0 {
			t.Errorf("warnings: %s", warn.String())
		}
	})
	return in
}
