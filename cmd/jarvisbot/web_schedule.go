package main

import (
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/web"
)

// webSchedule is the dashboard's Schedule tab over this session. (Its page fills
// this in.)
func (a *app) webSchedule(cfg config.Config, s *session) web.Schedule { return nil }
