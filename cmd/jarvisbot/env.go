package main

import (
	"context"
	"os"
	"path/filepath"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/datadir"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/browser"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/skills"

	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/store/secrets"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// dbFile is the database's name inside the data directory (ST1).
const dbFile = "jarvisbot.db"

// loadConfig reads the config file and environment this app was given.
func (a *app) loadConfig() (config.Config, error) {
	cfg, err := config.Load(a.getenv)
	if err != nil {
		return cfg, err
	}
	// browser.allow is read by the browser, which knows what an entry may be.
	if err := (browser.Options{Engine: cfg.Browser.Engine, Allow: cfg.Browser.Allow}).Validate(); err != nil {
		return cfg, jarvisbot.Errorf(jarvisbot.EINVALID, "%s: browser: %w", configName(cfg), err)
	}
	return cfg, nil
}

// open is the prologue most commands share: the config this app was given
// and the store it names, opened and seeded. The caller closes the store.
func (a *app) open(ctx context.Context) (config.Config, *sqlstore.DB, error) {
	cfg, err := a.loadConfig()
	if err != nil {
		return config.Config{}, nil, err
	}
	db, err := a.openStore(ctx, cfg)
	if err != nil {
		return config.Config{}, nil, err
	}
	return cfg, db, nil
}

// dbPath is where the database of cfg lives.
func dbPath(cfg config.Config) string {
	return filepath.Join(cfg.DataDir, dbFile)
}

// storeTarget is where the store is (ST1, ST2): the PostgreSQL URL of
// store: or JARVIS_DATABASE_URL when set, else the SQLite file in the data
// directory. The URL may hold a password: it is shown only through the
// store's redacted name (sqlstore.DB.Path).
func storeTarget(cfg config.Config) string {
	if cfg.Store != "" {
		return cfg.Store
	}
	return dbPath(cfg)
}

// openStore opens the store storeTarget names, migrating it, and
// makes sure the default agent and every agent the config names exist.
// Agents already in the store keep the owner's later edits.
func (a *app) openStore(ctx context.Context, cfg config.Config) (*sqlstore.DB, error) {
	return a.openStoreWith(ctx, cfg, nil)
}

// openStoreWith is openStore for a command that has its catalog already:
// an agent created now gets its focus from that catalog (C6), computed
// once. A nil view means the builtins and the config, assembled only when
// an agent is missing: the catalog reads the stored servers, and no server
// stored in a state that no longer assembles may lock the owner out of the
// commands that remove it.
func (a *app) openStoreWith(ctx context.Context, cfg config.Config, view *catalog.View) (*sqlstore.DB, error) {
	if err := privateDataDir(cfg); err != nil {
		return nil, err
	}
	db, err := sqlstore.Open(ctx, storeTarget(cfg))
	if err != nil {
		return nil, err
	}
	focus := func() (agents.Focuser, error) {
		if view != nil {
			return view, nil
		}
		c, err := buildCatalog(cfg, "")
		if err != nil {
			return nil, err
		}
		return c.View(), nil
	}
	if err := agents.Seed(ctx, db, cfg.Agents, configName(cfg), focus); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// privateDataDir makes the data directory and the folders jarvisbot keeps
// in it the owner's alone (X3, datadir.Private).
func privateDataDir(cfg config.Config) error {
	return datadir.Private(cfg.DataDir, keyringDir(cfg), skills.OwnDir(cfg.DataDir).Path(), collection.LocalDir(cfg.DataDir).Path(),
		filepath.Join(cfg.DataDir, "wiki"), skills.AgentsDir(cfg.DataDir).Path())
}

// keyringDir is the file keyring's folder.
// signinLockDir is where sign-in renewals take their cross-process lock:
// the keyring's directory, the same for every jarvisbot process of this
// data directory whatever the backend (an OS keyring has no folder of its
// own, so it is made here).
func signinLockDir(cfg config.Config) string {
	dir := keyringDir(cfg)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "" // renewals are then serialised within the process only
	}
	return dir
}

func keyringDir(cfg config.Config) string {
	if cfg.Keyring.Dir != "" {
		return cfg.Keyring.Dir
	}
	return filepath.Join(cfg.DataDir, "keyring")
}

// openSecrets opens the keyring the config selects; the file backend's
// passphrase comes from JARVIS_KEYRING_PASSWORD when it is first needed.
func (a *app) openSecrets(cfg config.Config) (*secrets.Keyring, error) {
	if err := privateDataDir(cfg); err != nil {
		return nil, err
	}
	return secrets.Open(secrets.Options{
		Backend:  cfg.Keyring.Backend,
		Dir:      keyringDir(cfg),
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
