package main

import (
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/web"
)

// webAgents is the dashboard's Agents tab over this session. (Its page fills
// this in.)
func (a *app) webAgents(cfg config.Config, s *session) web.Agents { return nil }
