package main

import (
	"strings"
	"testing"
)

// TestAgentFocusReachesStorePluginsNotInstalledC6: an agent described as
// an owner would, in English or German, gets the store plugin its words
// name in its focus before the plugin is installed, and add and show say
// it is not installed and what installs it; once installed without its
// sign-in, show says it needs the sign-in.
func TestAgentFocusReachesStorePluginsNotInstalledC6(t *testing.T) {
	e := newTestEnv(t)
	for _, tc := range []struct{ name, describe, plugin string }{
		{"inbox", "a daily overview of my Gmail inbox", "gmail"},
		{"reviewer", "reviews pull requests in my GitHub repos", "github"},
		{"postfach", "ein täglicher Überblick über meinen Gmail-Posteingang", "gmail"},
	} {
		code, out, errOut := e.jarvis(t, "", "agents", "add", tc.name, "--describe", tc.describe)
		if code != 0 || !strings.Contains(out, "plugin:"+tc.plugin) {
			t.Fatalf("agents add %s: exit %d\n%s%s", tc.name, code, out, errOut)
		}
		want := "plugin:" + tc.plugin + " is not installed: its tools join this agent once it is connected (jarvisbot plugins install " + tc.plugin + ")"
		if !strings.Contains(out, want) {
			t.Errorf("agents add %s does not say %q:\n%s", tc.name, want, out)
		}
	}
	e.mustJarvis(t, "", "plugins", "install", "gmail", "--no-signin")
	out := e.mustJarvis(t, "", "agents", "show", "inbox")
	if !strings.Contains(out, "plugin:gmail is installed but not signed in") || !strings.Contains(out, "jarvisbot plugins signin gmail") {
		t.Errorf("agents show after installing without the sign-in:\n%s", out)
	}
	if out = e.mustJarvis(t, "", "agents", "show", "reviewer"); strings.Contains(out, "gmail") || !strings.Contains(out, "plugins install github") {
		t.Errorf("agents show reviewer:\n%s", out)
	}
}
