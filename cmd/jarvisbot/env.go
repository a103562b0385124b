package main

import (
	"context"
	"maps"
	"path/filepath"
	"slices"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/config"
	"github.com/jarvisbot/jarvisbot/secrets"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlite"
)

// dbFile is the database's name inside the data directory (ST1).
const dbFile = "jarvisbot.db"

// defaultAgentDescription seeds the default agent when the config does not
// describe it.
const defaultAgentDescription = "Your general assistant."

// loadConfig reads the config file and environment this app was given.
func (a *app) loadConfig() (config.Config, error) {
	return config.Load(a.getenv)
}

// dbPath is where the database of cfg lives.
func dbPath(cfg config.Config) string {
	return filepath.Join(cfg.DataDir, dbFile)
}

// openStore opens the database in the data directory, migrating it, and
// makes sure the default agent and every agent the config names exist.
// Agents already in the store keep the owner's later edits.
func (a *app) openStore(ctx context.Context, cfg config.Config) (*sqlite.DB, error) {
	return a.openStoreWith(ctx, cfg, nil)
}

// openStoreWith is openStore for a command that has its catalog already:
// an agent created now gets its focus from that catalog (C6), computed
// once. A nil view means the builtins and the config.
func (a *app) openStoreWith(ctx context.Context, cfg config.Config, view *catalog.View) (*sqlite.DB, error) {
	if view == nil {
		c, err := buildCatalog(cfg, "")
		if err != nil {
			return nil, err
		}
		view = c.View()
	}
	db, err := sqlite.Open(ctx, dbPath(cfg))
	if err != nil {
		return nil, err
	}
	seed := func(name string, ag config.Agent) error {
		focus := view.Focus(name, ag.Description)
		_, err := db.EnsureAgent(ctx, store.Agent{Name: name, Description: ag.Description, Allow: ag.Allow, Block: ag.Block, Focus: focus})
		if err != nil {
			return jarvisbot.Errorf(jarvisbot.ErrorCode(err), "seeding agent %q from %s: %w", name, configName(cfg), err)
		}
		return nil
	}
	def, ok := cfg.Agents[store.DefaultAgent]
	if !ok || def.Description == "" {
		def.Description = defaultAgentDescription
	}
	if err := seed(store.DefaultAgent, def); err != nil {
		db.Close()
		return nil, err
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Agents)) {
		if name == store.DefaultAgent {
			continue
		}
		if err := seed(name, cfg.Agents[name]); err != nil {
			db.Close()
			return nil, err
		}
	}
	return db, nil
}

// openSecrets opens the keyring the config selects; the file backend's
// passphrase comes from JARVIS_KEYRING_PASSWORD when it is first needed.
func (a *app) openSecrets(cfg config.Config) (*secrets.Keyring, error) {
	dir := cfg.Keyring.Dir
	if dir == "" {
		dir = filepath.Join(cfg.DataDir, "keyring")
	}
	return secrets.Open(secrets.Options{
		Backend:  cfg.Keyring.Backend,
		Dir:      dir,
		Password: secrets.PasswordFromEnv(a.getenv),
		Getenv:   a.getenv,
	})
}

// configName names the config in messages, including when there is none.
func configName(cfg config.Config) string {
	if cfg.Path == "" {
		return "the defaults (no config file)"
	}
	return cfg.Path
}
