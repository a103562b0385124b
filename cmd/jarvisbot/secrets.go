package main

import (
	"context"
	"fmt"
	"os"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store/secrets"
)

const secretsSynopsis = "secrets set NAME <VALUE | list | delete NAME"

// cmdSecrets manages the keyring. Values are read from stdin, never from
// arguments (which land in shell history and ps) and are never printed.
func cmdSecrets(ctx context.Context, a *cli, args []string) error {
	fs := newFlagSet(a, "secrets", secretsSynopsis)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	action, rest, err := secretsAction(pos)
	if err != nil {
		return err
	}
	cfg, err := a.LoadConfig()
	if err != nil {
		return err
	}
	k, err := a.OpenKeyring(cfg)
	if err != nil {
		return err
	}
	where := "the " + k.Backend() + " keyring"
	switch action {
	case "set":
		value, err := a.readSecret(rest[0])
		if err != nil {
			return err
		}
		if err := k.SetSecret(ctx, rest[0], value); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "stored %s in %s\n", rest[0], where)
	case "list":
		names, err := k.SecretNames(ctx)
		if err != nil {
			return err
		}
		for _, name := range names {
			fmt.Fprintln(a.stdout, name)
		}
		if len(names) == 0 {
			fmt.Fprintf(a.Stderr, "no secrets stored in %s yet: add one with `jarvisbot secrets set NAME`\n", where)
		}
	case "delete":
		if err := k.DeleteSecret(ctx, rest[0]); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "deleted %s from %s\n", rest[0], where)
	}
	return nil
}

// secretsAction checks the action and its arguments before the keyring
// is opened.
func secretsAction(pos []string) (string, []string, error) {
	if len(pos) == 0 {
		return "", nil, jarvisbot.Errorf(jarvisbot.EINVALID, "missing action: usage: jarvisbot %s", secretsSynopsis)
	}
	action, rest := pos[0], pos[1:]
	want := map[string]int{"set": 1, "list": 0, "delete": 1}
	n, ok := want[action]
	if !ok {
		return "", nil, jarvisbot.Errorf(jarvisbot.EINVALID, "unknown action %q: usage: jarvisbot %s", action, secretsSynopsis)
	}
	if len(rest) != n {
		return "", nil, jarvisbot.Errorf(jarvisbot.EINVALID, "secrets %s takes %d argument(s), got %d: usage: jarvisbot %s", action, n, len(rest), secretsSynopsis)
	}
	if n == 1 {
		if err := secrets.ValidName(rest[0]); err != nil {
			return "", nil, err
		}
	}
	return action, rest, nil
}

// readSecret reads a value from stdin (secrets.ReadValue), saying how when
// stdin is a terminal.
func (a *cli) readSecret(name string) (string, error) {
	if a.stdin == nil {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "secrets set reads the value of %s from stdin, and there is none", name)
	}
	if f, ok := a.stdin.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			fmt.Fprintf(a.Stderr, "Paste the value of %s, then press Enter and Ctrl-D.\n(The terminal shows what you type; to avoid that, pipe it: jarvisbot secrets set %s < file)\n", name, name)
		}
	}
	return secrets.ReadValue(a.stdin, name)
}
