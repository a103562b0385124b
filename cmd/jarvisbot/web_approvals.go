package main

import (
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/web"
)

// webApprovals is the dashboard's Approvals tab over this session. (Its page fills
// this in.)
func (a *app) webApprovals(cfg config.Config, s *session) web.Approvals { return nil }
