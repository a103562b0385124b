package main

import (
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/mcp/backend"
)

// focusNow chooses focus on the catalog as it is when asked (C6).
type focusNow struct{ c *catalog.Catalog }

func (f focusNow) Focus(name, description string) []string {
	return f.c.View().Focus(name, description)
}

// backend is the running session as the MCP surface sees it (M4), on
// this process's clock.
func (a *cli) backend(cfg config.Config, s *app.Session) *backend.Service {
	b := backend.ForSession(s)
	if a.Clock != nil {
		b.Now = a.Clock.Now
	}
	return b
}
