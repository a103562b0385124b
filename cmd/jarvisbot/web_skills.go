package main

import (
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/web"
)

// webSkills is the dashboard's Skills tab over this session. (Its page fills
// this in.)
func (a *app) webSkills(cfg config.Config, s *session) web.Skills { return nil }
