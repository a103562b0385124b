package web

import (
	"context"

	"github.com/jarvisbot/jarvisbot/app"
)

// OverviewTab is the Overview over the running session: its channels,
// and the installation's use case, which `jarvisbot usage` shares.
func OverviewTab(s *app.Session) Overview { return overviewTab{s} }

type overviewTab struct{ s *app.Session }

func (t overviewTab) Overview(ctx context.Context) (app.Overview, error) { return t.s.Overview(ctx) }
