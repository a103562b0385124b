package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/store"
)

// cmdInit writes the commented config template, creates the data directory
// and the database with its default agent, and says what to do next.
func cmdInit(ctx context.Context, a *cli, args []string) error {
	fs := newFlagSet(a, "init", "init [--force]")
	force := fs.Bool("force", false, "replace an existing config file with the template")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "init takes no arguments (got %q); the config location comes from JARVIS_CONFIG or XDG_CONFIG_HOME", pos)
	}

	path := config.DefaultPath(a.Getenv)
	if path == "" {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "cannot tell where to write the config: set HOME, XDG_CONFIG_HOME or JARVIS_CONFIG")
	}
	if path, err = filepath.Abs(path); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "config path: %w", err)
	}
	if err := config.WriteTemplate(path, *force); err != nil {
		return err
	}

	cfg, db, err := a.Open(ctx)
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
