package main

import (
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/web"
)

// webPlugins is the dashboard's Plugins tab over this session. (Its page fills
// this in.)
func (a *app) webPlugins(cfg config.Config, s *session) web.Plugins { return nil }
