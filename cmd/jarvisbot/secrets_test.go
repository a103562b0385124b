package main

import (
	"context"
	"strings"
	"testing"
)

func TestSecretsCommand(t *testing.T) {
	const value = "sk-DISTINCTIVE-0123456789"
	e := newTestEnv(t)
	steps := []struct {
		name   string
		env    map[string]string // changes before this step
		stdin  string
		args   []string
		code   int
		stdout string // exact, when checked
		stderr string // substring
		check  bool
	}{
		{name: "list empty", args: []string{"secrets", "list"}, code: 0, stdout: "", stderr: "no secrets", check: true},
		{name: "set", stdin: value + "\n", args: []string{"secrets", "set", "ANTHROPIC_API_KEY"}, code: 0, stdout: "stored ANTHROPIC_API_KEY in the file keyring\n", check: true},
		{name: "set crlf", stdin: value + "\r\n", args: []string{"secrets", "set", "telegram/token"}, code: 0, check: true, stdout: "stored telegram/token in the file keyring\n"},
		{name: "set keeps inner newlines", stdin: value + "\n\n", args: []string{"secrets", "set", "multi"}, code: 0},
		{name: "set empty", stdin: "\n", args: []string{"secrets", "set", "EMPTY"}, code: 2, stderr: "empty value"},
		{name: "set without name", args: []string{"secrets", "set"}, code: 2, stderr: "usage"},
		{name: "set bad name", stdin: value, args: []string{"secrets", "set", "bad name"}, code: 2, stderr: "bad name"},
		{name: "list", args: []string{"secrets", "list"}, code: 0, stdout: "ANTHROPIC_API_KEY\nmulti\ntelegram/token\n", check: true},
		{name: "list extra", args: []string{"secrets", "list", "x"}, code: 2, stderr: "usage"},
		{name: "no action", args: []string{"secrets"}, code: 2, stderr: "missing action"},
		{name: "unknown action", args: []string{"secrets", "get", "x"}, code: 2, stderr: "unknown action"},
		{name: "wrong passphrase", env: map[string]string{"JARVIS_KEYRING_PASSWORD": "not it"}, stdin: "x", args: []string{"secrets", "set", "other"}, code: 1, stderr: "wrong passphrase"},
		{name: "no passphrase", env: map[string]string{"JARVIS_KEYRING_PASSWORD": ""}, stdin: "x", args: []string{"secrets", "set", "other"}, code: 1, stderr: "JARVIS_KEYRING_PASSWORD"},
		{name: "delete", env: map[string]string{"JARVIS_KEYRING_PASSWORD": "test-passphrase"}, args: []string{"secrets", "delete", "multi"}, code: 0, stdout: "deleted multi from the file keyring\n", check: true},
		{name: "delete missing", args: []string{"secrets", "delete", "multi"}, code: 1, stderr: "not set"},
		{name: "list after delete", args: []string{"secrets", "list"}, code: 0, stdout: "ANTHROPIC_API_KEY\ntelegram/token\n", check: true},
	}
	for _, s := range steps {
		for k, v := range s.env {
			e.vars[k] = v
		}
		code, out, errOut := e.jarvis(t, s.stdin, s.args...)
		if code != s.code {
			t.Errorf("%s: exit %d, want %d (stderr %q)", s.name, code, s.code, errOut)
		}
		if s.check && out != s.stdout {
			t.Errorf("%s: stdout %q, want %q", s.name, out, s.stdout)
		}
		if !strings.Contains(errOut, s.stderr) {
			t.Errorf("%s: stderr %q does not contain %q", s.name, errOut, s.stderr)
		}
		if strings.Contains(out+errOut, value) {
			t.Errorf("%s: the secret value was echoed: stdout %q stderr %q", s.name, out, errOut)
		}
	}

	// The values are stored with exactly one line end removed.
	k := testKeyring(t, e)
	for name, want := range map[string]string{"ANTHROPIC_API_KEY": value, "telegram/token": value} {
		if got, err := k.Get(context.Background(), name); err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
}
