package main

import (
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/mcp/backend"
)

// backend is the running session as the MCP surface sees it (M4), on
// this process's clock.
func (a *cli) backend(cfg config.Config, s *app.Session) *backend.Service {
	b := backend.ForSession(s)
	if a.Clock != nil {
		b.Now = a.Clock.Now
	}
	return b
}
