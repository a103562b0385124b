package main

import (
	"slices"
	"strings"
	"testing"
)

// TestCLIToolsP5: a connected program joins the catalog as cli:NAME at
// tier ask, the config can lower it, and it runs with an argv.
func TestCLIToolsP5(t *testing.T) {
	e := newTestEnv(t)
	code, out, errOut := e.jarvis(t, "", "cli", "add", "echo", "--describe", "Print its arguments.")
	if code != 0 || !strings.Contains(out, "Added cli:echo") || !strings.Contains(out, "tier ask") {
		t.Fatalf("add: exit %d %s %s", code, out, errOut)
	}
	_, out, _ = e.jarvis(t, "", "catalog", "list")
	if !strings.Contains(out, "cli:echo") || !strings.Contains(out, "ask") {
		t.Errorf("catalog list:\n%s", out)
	}
	_, out, _ = e.jarvis(t, "", "route", "--json", "hello")
	if r := decodeRoutes(t, out)[0]; !slices.Contains(r.Tools, "cli:echo") {
		t.Errorf("route tools %v", r.Tools)
	}
	if code, out, _ := e.jarvis(t, "", "cli", "run", "echo", "--", "a; b", "$HOME"); code != 0 || !strings.Contains(out, "a; b $HOME") {
		t.Errorf("run: %d %q", code, out)
	}
	e.writeConfig(t, "tiers:\n  cli:echo: monitor\n")
	_, out, _ = e.jarvis(t, "", "catalog", "list")
	listed := false
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "cli:echo") {
			listed = true
			if !strings.Contains(l, "monitor") {
				t.Errorf("tier override: %q", l)
			}
		}
	}
	if !listed {
		t.Errorf("catalog list has no cli:echo:\n%s", out)
	}
	for _, args := range [][]string{
		{"cli", "add", "echo"},
		{"cli", "add", "ghost", "--path", "no-such-program-xyz"},
		{"cli", "add", "tok", "--path", "echo", "--env", "GH_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123"},
		{"cli", "remove", "nothing"},
	} {
		if code, _, errOut := e.jarvis(t, "", args...); code == 0 || errOut == "" {
			t.Errorf("%v accepted", args)
		}
	}
	if code, _, _ := e.jarvis(t, "", "cli", "remove", "echo"); code != 0 {
		t.Error("remove")
	}
}
