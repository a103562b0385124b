package main

import (
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/web"
)

// webMCPs is the dashboard's MCPs tab over this session. (Its page fills
// this in.)
func (a *app) webMCPs(cfg config.Config, s *session) web.MCPs { return nil }
