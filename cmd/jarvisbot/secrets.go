package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store/secrets"
)

const secretsSynopsis = "secrets set NAME <VALUE | list | delete NAME"

// maxSecretLen bounds what `secrets set` reads: keys and tokens are short,
// and a service-account file is a few kilobytes; more is a wrong pipe.
const maxSecretLen = 64 << 10

// cmdSecrets manages the keyring. Values are read from stdin, never from
// arguments (which land in shell history and ps) and are never printed.
func cmdSecrets(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "secrets", secretsSynopsis)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "missing action: usage: jarvisbot %s", secretsSynopsis)
	}
	action, rest := pos[0], pos[1:]
	want := map[string]int{"set": 1, "list": 0, "delete": 1}
	n, ok := want[action]
	if !ok {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "unknown action %q: usage: jarvisbot %s", action, secretsSynopsis)
	}
	if len(rest) != n {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "secrets %s takes %d argument(s), got %d: usage: jarvisbot %s", action, n, len(rest), secretsSynopsis)
	}
	if n == 1 {
		if err := secrets.ValidName(rest[0]); err != nil {
			return err
		}
	}

	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	k, err := a.openSecrets(cfg)
	if err != nil {
		return err
	}
	where := "the " + k.Backend() + " keyring"

	switch action {
	case "set":
		name := rest[0]
		value, err := a.readSecret(name)
		if err != nil {
			return err
		}
		if err := k.Set(ctx, name, value); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "stored %s in %s\n", name, where)
	case "list":
		names, err := k.Names(ctx)
		if err != nil {
			return err
		}
		for _, name := range names {
			fmt.Fprintln(a.stdout, name)
		}
		if len(names) == 0 {
			fmt.Fprintf(a.stderr, "no secrets stored in %s yet: add one with `jarvisbot secrets set NAME`\n", where)
		}
	case "delete":
		if err := k.Delete(ctx, rest[0]); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "deleted %s from %s\n", rest[0], where)
	}
	return nil
}

// readSecret reads a value from stdin until EOF, dropping the one line end
// that echo and editors add.
func (a *app) readSecret(name string) (string, error) {
	if a.stdin == nil {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "secrets set reads the value of %s from stdin, and there is none", name)
	}
	if f, ok := a.stdin.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			fmt.Fprintf(a.stderr, "Paste the value of %s, then press Enter and Ctrl-D.\n(The terminal shows what you type; to avoid that, pipe it: jarvisbot secrets set %s < file)\n", name, name)
		}
	}
	b, err := io.ReadAll(io.LimitReader(a.stdin, maxSecretLen+1))
	if err != nil {
		return "", jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot read the value of %s from stdin: %w", name, err)
	}
	if len(b) > maxSecretLen {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "the value of %s on stdin is longer than %d bytes: is it the right input?", name, maxSecretLen)
	}
	v := string(b)
	if s, ok := strings.CutSuffix(v, "\r\n"); ok {
		v = s
	} else {
		v = strings.TrimSuffix(v, "\n")
	}
	if v == "" {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "refusing to store an empty value for %s: pipe the value on stdin, for example: jarvisbot secrets set %s < file", name, name)
	}
	return v, nil
}
