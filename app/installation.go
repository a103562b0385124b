package app

import (
	"context"

	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// Installation is one jarvisbot's configuration and store, opened: what
// the use cases act on, whether a one-off command runs them or the
// running service does (the dashboard, the MCP surface). The doors build
// one and call its methods; results come back as values and typed errors,
// never as printed text.
type Installation struct {
	Env    *Env
	Config config.Config
	DB     *sqlstore.DB
	// Live is the running service when the use case runs inside serve,
	// so that a change takes effect at once (a server started, a plugin's
	// tools offered); nil in a one-off command, where the next start of
	// serve takes it up.
	Live *Service
}

// OpenInstallation loads the config and opens its store for a one-off
// command. The caller closes it.
func (a *Env) OpenInstallation(ctx context.Context) (*Installation, error) {
	cfg, db, err := a.Open(ctx)
	if err != nil {
		return nil, err
	}
	return &Installation{Env: a, Config: cfg, DB: db}, nil
}

// Close closes the store of a one-off command's installation; the
// running service's is closed with the service.
func (in *Installation) Close() error {
	if in.Live != nil {
		return nil
	}
	return in.DB.Close()
}

// Installation is the running service as the use cases see it.
func (s *Service) Installation() *Installation {
	return &Installation{Env: s.env, Config: s.Config, DB: s.DB, Live: s}
}
