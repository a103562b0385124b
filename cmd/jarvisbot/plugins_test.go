package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPluginsValidate(t *testing.T) {
	e := newTestEnv(t)
	dir := filepath.Join(t.TempDir(), "demo")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "plugin.json"), []byte(`{"$schema":"x","name":"Bad--Name","version":1,"colour":"red"}`), 0o600)
	code, out, errOut := e.jarvis(t, "", "plugins", "validate", dir)
	if code != 2 || !strings.Contains(out, "name") || !strings.Contains(out, "version") || !strings.Contains(out, "colour") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	code, _, errOut = e.jarvis(t, "", "plugins", "validate", filepath.Join(dir, "missing"))
	if code == 0 {
		t.Errorf("missing folder accepted: %s", errOut)
	}
}
