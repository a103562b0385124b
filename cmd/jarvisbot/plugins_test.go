package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/plugins"
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

// TestPluginsInstallP2S2: installing a store plugin turns its manual's
// words on for routing; removing turns them off; every mistake is named.
func TestPluginsInstallP2S2(t *testing.T) {
	e := newTestEnv(t)
	manualFirst := func() string {
		_, out, _ := e.jarvis(t, "", "route", "--json", "Is Thursday evening still free for me?")
		r := decodeRoutes(t, out)[0]
		for _, s := range r.Skills {
			if s.Entry == "join" || s.Entry == "take-over" {
				return s.ID
			}
		}
		return ""
	}
	if got := manualFirst(); got != "" {
		t.Fatalf("before install: %s entered", got)
	}
	code, out, errOut := e.jarvis(t, "", "plugins", "install", "google-calendar")
	if code != 0 || !strings.Contains(out, "Installed Google Calendar") {
		t.Fatalf("install: exit %d %s %s", code, out, errOut)
	}
	if got := manualFirst(); got != "skill:google-calendar" {
		t.Errorf("after install: %q entered", got)
	}
	if code, _, errOut := e.jarvis(t, "", "plugins", "install", "google-calendar"); code != 1 || !strings.Contains(errOut, "installed already") {
		t.Errorf("second install: exit %d %s", code, errOut)
	}
	code, out, _ = e.jarvis(t, "", "plugins", "list", "--json")
	var rows []plugins.Listed
	if err := json.Unmarshal([]byte(out), &rows); code != 0 || err != nil {
		t.Fatalf("list --json: %v %s", err, out)
	}
	states := map[string]string{}
	for _, r := range rows {
		states[r.Name] = r.State
	}
	if len(rows) < 40 || states["google-calendar"] != "installed" || states["github"] != "not-installed" {
		t.Errorf("%d plugins, states %v", len(rows), states)
	}
	code, out, _ = e.jarvis(t, "", "plugins", "show", "github")
	if code != 0 || !strings.Contains(out, "streamable-http") || !strings.Contains(out, "skill:github, tier ask") {
		t.Errorf("show:\n%s", out)
	}
	if code, _, _ := e.jarvis(t, "", "plugins", "remove", "google-calendar"); code != 0 {
		t.Error("remove failed")
	}
	if got := manualFirst(); got != "" {
		t.Errorf("after remove: %s entered", got)
	}
	for _, args := range [][]string{
		{"plugins", "install", "no-such-plugin"},
		{"plugins", "remove", "github"},
		{"plugins", "show"},
		{"plugins", "fly"},
	} {
		if code, _, errOut := e.jarvis(t, "", args...); code == 0 || errOut == "" {
			t.Errorf("%v: exit %d, no error", args, code)
		}
	}
}

// TestPluginInstallRecordsServers: a plugin's mcp.json servers join the
// owner's servers, off until a sign-in when one is needed, and leave with
// the plugin.
func TestPluginInstallRecordsServers(t *testing.T) {
	e := newTestEnv(t)
	for _, p := range []string{"github", "deepwiki"} {
		e.mustJarvis(t, "", "plugins", "install", p, "--no-signin")
	}
	_, out, _ := e.jarvis(t, "", "mcp", "list", "--json")
	var rows []app.ServerRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 2 {
		t.Fatalf("servers after install: %v %s", err, out)
	}
	on := map[string]bool{}
	for _, r := range rows {
		on[r.Name] = r.Enabled
	}
	if on["github"] || !on["deepwiki"] {
		t.Errorf("enabled: %v (github needs a sign-in, deepwiki none)", on)
	}
	e.jarvis(t, "", "plugins", "remove", "github")
	_, out, _ = e.jarvis(t, "", "mcp", "list", "--json")
	if strings.Contains(out, `"github"`) {
		t.Errorf("github's server outlived its plugin: %s", out)
	}
}
