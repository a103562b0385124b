package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScheduleListStartsNothingSC1: `schedule list`, `pause` and `resume`
// read and write the store only: an added stdio MCP server is not started
// (its command leaves a mark each time it starts).
func TestScheduleListStartsNothingSC1(t *testing.T) {
	e := newTestEnv(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	script := filepath.Join(dir, "server.sh")
	body := "#!/bin/sh\necho started >> '" + marker + "'\nexec '" + mcpTestServer(t) + "' \"$@\"\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	e.mustJarvis(t, "", "mcp", "add", "marked", "--", script)
	starts := func() int {
		b, err := os.ReadFile(marker)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(b), "started")
	}
	if n := starts(); n != 1 {
		t.Fatalf("the server started %d times when added, want 1", n)
	}
	for _, args := range [][]string{{"schedule"}, {"schedule", "list"}, {"schedule", "pause", "morning-brief"}, {"schedule", "resume", "morning-brief"}} {
		code, out, errOut := e.jarvis(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: %d %s %s", args, code, out, errOut)
		}
		if n := starts(); n != 1 {
			t.Fatalf("%v started the MCP server (%d starts in all)", args, n)
		}
	}
	if _, out, _ := e.jarvis(t, "", "schedule", "list"); !strings.Contains(out, "morning-brief") {
		t.Errorf("list:\n%s", out)
	}
}

// TestScheduleRunWithoutModelSC1: with no model configured `schedule run`
// records the run as not run and says what to set; `schedule list` shows
// it as not run, not as a failure.
func TestScheduleRunWithoutModelSC1(t *testing.T) {
	e := newTestEnv(t)
	code, out, errOut := e.jarvis(t, "", "schedule", "run", "morning-brief")
	if code != 2 || !strings.Contains(errOut, "no model is configured") || !strings.Contains(errOut, "ANTHROPIC_API_KEY") || !strings.Contains(errOut, "did not run") {
		t.Fatalf("run without a model: exit %d\n%s\n%s", code, out, errOut)
	}
	if strings.Contains(out, "[report for") {
		t.Errorf("a report was delivered for a run that did not happen:\n%s", out)
	}
	code, out, errOut = e.jarvis(t, "", "schedule", "list")
	if code != 0 || !strings.Contains(out, "not run (no model is configured)") || strings.Contains(out, "failed") {
		t.Errorf("list: %d\n%s\n%s", code, out, errOut)
	}
}

// TestSchedulePauseUnknownSkill: pausing a name that is not a scheduled
// skill says so instead of recording a switch nothing reads.
func TestSchedulePauseUnknownSkill(t *testing.T) {
	e := newTestEnv(t)
	code, _, errOut := e.jarvis(t, "", "schedule", "pause", "morning-breif")
	if code != 1 || !strings.Contains(errOut, "morning-breif") || !strings.Contains(errOut, "morning-brief") {
		t.Errorf("pause of an unknown skill: exit %d %s", code, errOut)
	}
}
