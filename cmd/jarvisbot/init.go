package main

import (
	"context"
	"fmt"

	"github.com/jarvisbot/jarvisbot"
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

	did, err := a.Init(ctx, *force)
	if err != nil {
		return err
	}
	backend := did.Keyring
	if backend == "" {
		backend = "chosen automatically"
	}
	w := a.stdout
	fmt.Fprintf(w, "wrote config   %s\n", did.ConfigPath)
	fmt.Fprintf(w, "data dir       %s\n", did.DataDir)
	fmt.Fprintf(w, "database       %s (schema version %d, agent %q ready)\n", did.Database, did.Schema, store.DefaultAgent)
	fmt.Fprintf(w, "keyring        %s\n", backend)
	fmt.Fprintf(w, "\nNext: store your model provider's API key in the keyring, for example\n")
	fmt.Fprintf(w, "  jarvisbot secrets set ANTHROPIC_API_KEY < key.txt\n")
	fmt.Fprintf(w, "(the file keyring reads its passphrase from JARVIS_KEYRING_PASSWORD),\n")
	fmt.Fprintf(w, "then edit %s to add agents and tiers.\n", did.ConfigPath)
	return nil
}
