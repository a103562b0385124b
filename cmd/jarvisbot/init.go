package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/store"
)

// cmdInit writes the commented config template, creates the data directory
// and the database with its default agent, and says what to do next.
func cmdInit(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "init", "init [--force]")
	force := fs.Bool("force", false, "replace an existing config file with the template")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "init takes no arguments (got %q); the config location comes from JARVIS_CONFIG or XDG_CONFIG_HOME", pos)
	}

	path := config.DefaultPath(a.getenv)
	if path == "" {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "cannot tell where to write the config: set HOME, XDG_CONFIG_HOME or JARVIS_CONFIG")
	}
	if path, err = filepath.Abs(path); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "config path: %w", err)
	}
	if err := writeTemplate(path, *force); err != nil {
		return err
	}

	cfg, db, err := a.open(ctx)
	if err != nil {
		return err
	}
	version, err := db.SchemaVersion(ctx)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}

	backend := cfg.Keyring.Backend
	if backend == "" {
		backend = "chosen automatically"
	}
	w := a.stdout
	fmt.Fprintf(w, "wrote config   %s\n", path)
	fmt.Fprintf(w, "data dir       %s\n", cfg.DataDir)
	fmt.Fprintf(w, "database       %s (schema version %d, agent %q ready)\n", db.Path(), version, store.DefaultAgent)
	fmt.Fprintf(w, "keyring        %s\n", backend)
	fmt.Fprintf(w, "\nNext: store your model provider's API key in the keyring, for example\n")
	fmt.Fprintf(w, "  jarvisbot secrets set ANTHROPIC_API_KEY < key.txt\n")
	fmt.Fprintf(w, "(the file keyring reads its passphrase from JARVIS_KEYRING_PASSWORD),\n")
	fmt.Fprintf(w, "then edit %s to add agents and tiers.\n", path)
	return nil
}

// writeTemplate writes the template to path with mode 0600 in a 0700
// directory. It goes through a temporary file and a rename, so an
// interrupted init never leaves half a config behind.
func writeTemplate(path string, force bool) (err error) {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return jarvisbot.Errorf(jarvisbot.EINVALID, "config path %s is a directory: remove it, or set JARVIS_CONFIG to a file path", path)
	case err == nil && !force:
		return jarvisbot.Errorf(jarvisbot.ECONFLICT, "config file %s already exists, so init left it alone: edit it, or run `jarvisbot init --force` to replace it with the default template", path)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot check the config file %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot create the config directory %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, ".config-*.yaml") // CreateTemp uses mode 0600
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot write the config file in %s: %w", dir, err)
	}
	defer func() { err = errors.Join(err, removeLeftover(tmp.Name())) }() // gone already after the rename
	if _, err := tmp.Write(config.Template()); err != nil {
		_ = tmp.Close() // the write failed already; that error says what to do
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot write the config file %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot write the config file %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot write the config file %s: %w", path, err)
	}
	return nil
}
