package app

import (
	"context"
	"github.com/jarvisbot/jarvisbot/app/assembly"
	"io"
	"os"
	"path/filepath"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents/cliagent"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/datadir"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/browser"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"

	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/store/secrets"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// DBFile is the database's name inside the data directory (ST1).
const DBFile = "jarvisbot.db"

// loadConfig reads the config file and environment this app was given.
func (a *Env) LoadConfig() (config.Config, error) {
	cfg, err := config.Load(a.Getenv)
	if err != nil {
		return cfg, err
	}
	// browser.allow is read by the browser, which knows what an entry may be.
	if err := (browser.Options{Engine: cfg.Browser.Engine, Allow: cfg.Browser.Allow}).Validate(); err != nil {
		return cfg, jarvisbot.Errorf(jarvisbot.EINVALID, "%s: browser: %w", ConfigName(cfg), err)
	}
	return cfg, nil
}

// open is the prologue most commands share: the config this app was given
// and the store it names, opened and seeded. The caller closes the store.
func (a *Env) Open(ctx context.Context) (config.Config, *sqlstore.DB, error) {
	cfg, err := a.LoadConfig()
	if err != nil {
		return config.Config{}, nil, err
	}
	db, err := a.OpenStore(ctx, cfg)
	if err != nil {
		return config.Config{}, nil, err
	}
	return cfg, db, nil
}

// DBPath is where the database of cfg lives.
func DBPath(cfg config.Config) string {
	return filepath.Join(cfg.DataDir, DBFile)
}

// StoreTarget is where the store is (ST1, ST2): the PostgreSQL URL of
// store: or JARVIS_DATABASE_URL when set, else the SQLite file in the data
// directory. The URL may hold a password: it is shown only through the
// store's redacted name (sqlstore.DB.Path).
func StoreTarget(cfg config.Config) string {
	if cfg.Store != "" {
		return cfg.Store
	}
	return DBPath(cfg)
}

// openStore opens the store StoreTarget names, migrating it, and
// makes sure the default agent and every agent the config names exist.
// Agents already in the store keep the owner's later edits.
func (a *Env) OpenStore(ctx context.Context, cfg config.Config) (*sqlstore.DB, error) {
	return a.OpenStoreWith(ctx, cfg, nil)
}

// openWithCatalog opens the store once and assembles the catalog from it:
// serve's start, where BuildCatalog and OpenStoreWith would open, check and
// close the store twice on the way to the owner being reachable. beside,
// when set, is called with the open store before the catalog is assembled
// (buildService); what it starts must bear the store closing under it when
// the catalog cannot be assembled.
func (a *Env) openWithCatalog(ctx context.Context, cfg config.Config, beside func(*sqlstore.DB)) (*sqlstore.DB, *catalog.Catalog, []store.MCPServer, error) {
	if err := PrivateDataDir(cfg); err != nil {
		return nil, nil, nil, err
	}
	db, err := sqlstore.Open(ctx, StoreTarget(cfg))
	if err != nil {
		return nil, nil, nil, err
	}
	if beside != nil {
		beside(db)
	}
	read := &serversRead{DB: db}
	// The store stays open as long as the catalog: schemas are read from it
	// again, through the store itself rather than read, which holds every
	// row it listed.
	c, err := assembly.Build(ctx, assembly.Sources{Config: cfg, Stored: read, Reread: db})
	if err == nil {
		err = agents.Seed(ctx, db, configuredAgents(cfg), ConfigName(cfg), func() (agents.Focuser, error) { return FocusOn(c.View(), cfg.DataDir), nil })
	}
	if err != nil {
		db.Close()
		return nil, nil, nil, err
	}
	return db, c, read.servers, nil
}

// serversRead is the store as the catalog is assembled from it at start,
// keeping the MCP servers it read: serve plans them from the same rows
// instead of reading every stored tool list a second time (~4 ms and
// their size in garbage before the owner is reachable).
type serversRead struct {
	*sqlstore.DB
	servers []store.MCPServer
	read    bool
}

func (r *serversRead) MCPServers(ctx context.Context) ([]store.MCPServer, error) {
	if !r.read {
		list, err := r.DB.MCPServers(ctx)
		if err != nil {
			return nil, err
		}
		r.servers, r.read = list, true
	}
	return r.servers, nil
}

// openStoreWith is openStore for a command that has its catalog already:
// an agent created now gets its focus from that catalog (C6), computed
// once. A nil view means the builtins and the config, assembled only when
// an agent is missing: the catalog reads the stored servers, and no server
// stored in a state that no longer assembles may lock the owner out of the
// commands that remove it.
func (a *Env) OpenStoreWith(ctx context.Context, cfg config.Config, view *catalog.View) (*sqlstore.DB, error) {
	if err := PrivateDataDir(cfg); err != nil {
		return nil, err
	}
	db, err := sqlstore.Open(ctx, StoreTarget(cfg))
	if err != nil {
		return nil, err
	}
	focus := func() (agents.Focuser, error) {
		if view != nil {
			return FocusOn(view, cfg.DataDir), nil
		}
		c, err := BuildCatalog(cfg, "")
		if err != nil {
			return nil, err
		}
		return FocusOn(c.View(), cfg.DataDir), nil
	}
	if err := agents.Seed(ctx, db, configuredAgents(cfg), ConfigName(cfg), focus); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// PrivateDataDir makes the data directory and the folders jarvisbot keeps
// in it the owner's alone (X3, datadir.Private).
func PrivateDataDir(cfg config.Config) error {
	return datadir.Private(cfg.DataDir, KeyringDir(cfg), skills.OwnDir(cfg.DataDir).Path(), collection.LocalDir(cfg.DataDir).Path(),
		filepath.Join(cfg.DataDir, "wiki"), skills.AgentsDir(cfg.DataDir).Path())
}

// KeyringDir is the file keyring's folder.
// SigninLockDir is where sign-in renewals take their cross-process lock:
// the keyring's directory, the same for every jarvisbot process of this
// data directory whatever the backend (an OS keyring has no folder of its
// own, so it is made here).
func SigninLockDir(cfg config.Config) string {
	dir := KeyringDir(cfg)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "" // renewals are then serialised within the process only
	}
	return dir
}

func KeyringDir(cfg config.Config) string {
	if cfg.Keyring.Dir != "" {
		return cfg.Keyring.Dir
	}
	return filepath.Join(cfg.DataDir, "keyring")
}

// openSecrets opens the keyring the config selects; the file backend's
// passphrase comes from JARVIS_KEYRING_PASSWORD when it is first needed.
func (a *Env) OpenSecrets(cfg config.Config) (*secrets.Keyring, error) {
	if err := PrivateDataDir(cfg); err != nil {
		return nil, err
	}
	return secrets.Open(secrets.Options{
		Backend:  cfg.Keyring.Backend,
		Dir:      KeyringDir(cfg),
		Password: secrets.PasswordFromEnv(a.Getenv),
		Getenv:   a.Getenv,
	})
}

// ConfigName names the config in messages, including when there is none.
func ConfigName(cfg config.Config) string {
	if cfg.Path == "" {
		return "the defaults (no config file)"
	}
	return cfg.Path
}

// Env is what the process gives the service: its environment and where
// warnings go, passed in so tests run the service in-process without
// touching the real ones.
type Env struct {
	Getenv func(string) string
	// Environ lists the environment as NAME=VALUE, for what passes a
	// whole family of variables on (a coding CLI's ANTHROPIC_*); nil is
	// none.
	Environ func() []string
	// Stderr takes the log and warnings (skills that cannot be read).
	Stderr io.Writer
	// Clock is the time the schedule runs on; nil means the wall clock.
	// Tests pin it, so that they pass at any hour.
	Clock clock.Clock
	// CLIProbes remembers what each coding CLI binary supports, asked
	// once per binary rather than at every turn (M5); nil asks per CLI.
	CLIProbes *cliagent.Probes
}

// configuredAgents are the agents the config names, as the records
// seeding creates when one is missing.
func configuredAgents(cfg config.Config) map[string]store.Agent {
	out := make(map[string]store.Agent, len(cfg.Agents))
	for name, ag := range cfg.Agents {
		out[name] = store.Agent{Name: name, Description: ag.Description, Allow: ag.Allow, Block: ag.Block}
	}
	return out
}
