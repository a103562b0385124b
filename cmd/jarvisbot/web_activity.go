package main

import (
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/web"
)

// webActivity is the dashboard's Activity tab over this session. (Its page fills
// this in.)
func (a *app) webActivity(cfg config.Config, s *session) web.Activity { return nil }
