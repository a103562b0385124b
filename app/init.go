package app

import (
	"context"
	"path/filepath"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/config"
)

// Initialized is what Init set up.
type Initialized struct {
	ConfigPath string // the config file written, absolute
	DataDir    string
	Database   string // the database's path
	Schema     int    // the database's schema version
	// Keyring is the keyring backend the config names; "" when it is
	// chosen automatically.
	Keyring string
}

// Init writes the commented config template where the environment says
// the config lives (JARVIS_CONFIG, XDG_CONFIG_HOME, HOME), replacing one
// there only with force, and creates the data directory and the database
// with its default agent.
func (a *Env) Init(ctx context.Context, force bool) (Initialized, error) {
	path := config.DefaultPath(a.Getenv)
	if path == "" {
		return Initialized{}, jarvisbot.Errorf(jarvisbot.EINVALID, "cannot tell where to write the config: set HOME, XDG_CONFIG_HOME or JARVIS_CONFIG")
	}
	path, err := filepath.Abs(path)
	if err != nil {
		return Initialized{}, jarvisbot.Errorf(jarvisbot.EINVALID, "config path: %w", err)
	}
	if err := config.WriteTemplate(path, force); err != nil {
		return Initialized{}, err
	}
	cfg, db, err := a.Open(ctx)
	if err != nil {
		return Initialized{}, err
	}
	version, err := db.SchemaVersion(ctx)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Initialized{}, err
	}
	return Initialized{ConfigPath: path, DataDir: cfg.DataDir, Database: db.Path(), Schema: version, Keyring: cfg.Keyring.Backend}, nil
}
