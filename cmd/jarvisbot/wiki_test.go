package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/app"
)

// wikiApp returns an app whose environment points the data dir at a fresh
// directory and the config lookup at empty homes, so no real config is read.
func wikiApp(t *testing.T) (a *cli, dataDir string, stdout, stderr *bytes.Buffer) {
	t.Helper()
	dataDir = t.TempDir()
	env := map[string]string{
		"JARVIS_DATA_DIR": dataDir,
		"XDG_CONFIG_HOME": t.TempDir(),
		"HOME":            t.TempDir(),
	}
	stdout, stderr = new(bytes.Buffer), new(bytes.Buffer)
	a = &cli{stdin: strings.NewReader(""), stdout: stdout, Env: app.Env{Stderr: stderr, Getenv: func(k string) string { return env[k] }}}
	return a, dataDir, stdout, stderr
}

func TestCmdWiki(t *testing.T) {
	a, dataDir, stdout, stderr := wikiApp(t)
	ctx := context.Background()
	steps := []struct {
		args  []string
		stdin string
		code  int
		out   string // substring of stdout, or of stderr when code != 0
	}{
		{[]string{"list"}, "", 0, ""},
		{[]string{"write", "projects/garden"}, "# Garden\nTomatoes by Müller.\n", 0, "saved projects/garden (30 bytes)"},
		{[]string{"append", "projects/garden.md"}, "basil", 0, "saved projects/garden (36 bytes)"},
		{[]string{"read", "projects/garden"}, "", 0, "# Garden\nTomatoes by Müller.\nbasil\n"},
		{[]string{"write", "todo"}, "milk", 0, "saved todo"},
		{[]string{"list"}, "", 0, "projects/garden  Garden"},
		{[]string{"search", "muller", "tomatoes"}, "", 0, "1. projects/garden — Garden"},
		{[]string{"search", "-limit", "1", "milk"}, "", 0, "1. todo — todo"},
		{[]string{"delete", "todo"}, "", 0, "deleted todo"},
		{[]string{"read", "todo"}, "", 1, `no note "todo"`},
		{[]string{"read", "projects/gardn"}, "", 1, `did you mean "projects/garden"`},
		{[]string{"read", "../escape"}, "", 2, `".."`},
		{[]string{"write", "/etc/passwd"}, "x", 2, "absolute"},
		{[]string{}, "", 2, "missing action"},
		{[]string{"read"}, "", 2, "one note NAME"},
		{[]string{"list", "extra"}, "", 2, "no arguments"},
		{[]string{"search"}, "", 2, "needs a QUERY"},
		{[]string{"rename", "a"}, "", 2, "unknown wiki action"},
		{[]string{"-nosuchflag"}, "", 2, "nosuchflag"},
	}
	for _, s := range steps {
		t.Run(strings.Join(s.args, " "), func(t *testing.T) {
			stdout.Reset()
			stderr.Reset()
			a.stdin = strings.NewReader(s.stdin)
			code := run(ctx, append([]string{"wiki"}, s.args...), a)
			if code != s.code {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, s.code, stdout, stderr)
			}
			got := stdout.String()
			if s.code != 0 {
				got = stderr.String()
			}
			if !strings.Contains(got, s.out) {
				t.Errorf("output %q, want it to contain %q", got, s.out)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dataDir, "wiki", "projects", "garden.md")); err != nil {
		t.Errorf("note not stored under <data dir>/wiki: %v", err)
	}
}
