package main

import (
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/web"
)

// webRoute is the dashboard's Route tab over this session. (Its page fills
// this in.)
func (a *app) webRoute(cfg config.Config, s *session) web.Route { return nil }
