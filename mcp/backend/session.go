package backend

import (
	"context"
	"fmt"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/mcp/surface"
)

// ForSession is the running session as the MCP surface sees it (M4): its
// store, live catalog, approvals engine and job queue, and the app
// layer's skill list, schedule and notices, in the surface's terms.
func ForSession(s *app.Session) *Service {
	return &Service{
		Store:   s.DB,
		Catalog: s.Catalog.View,
		Engine:  s.Approvals,
		Focus:   focusNow{s.Catalog, s.Config.DataDir},
		SkillList: func(ctx context.Context) ([]surface.Skill, error) {
			list, err := s.SkillList(ctx)
			if err != nil {
				return nil, err
			}
			out := make([]surface.Skill, 0, len(list))
			for _, k := range list {
				out = append(out, surface.Skill{Name: k.Name, Description: k.Description, Enabled: k.Enabled, Off: k.Off, Kind: k.Kind, Source: k.Source, Schedule: k.Schedule})
			}
			return out, nil
		},
		ScheduleList: func(ctx context.Context) ([]surface.ScheduleEntry, error) {
			var out []surface.ScheduleEntry
			for _, e := range s.Scheduled(ctx) {
				se := surface.ScheduleEntry{Skill: e.Entry.Skill, Schedule: e.Entry.Spec, Next: e.Next, Paused: e.Paused}
				if e.Last != nil {
					se.Last = fmt.Sprintf("%s %s, report %s", e.Last.DueAt.Format("2006-01-02 15:04"), e.Last.Outcome, e.Last.Delivery)
				}
				out = append(out, se)
			}
			return out, nil
		},
		RunNow: func(ctx context.Context, skill string) (string, error) {
			r, err := s.RunScheduledForApp(ctx, skill)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%s ran: %s (report %s to %s)", skill, r.Outcome, r.Delivery, r.Chat), nil
		},
		Notify: func(ctx context.Context, n Notice) error {
			return s.NotifyOwner(ctx, app.MainChat(s.Config), n)
		},
		Paused: s.SetPaused,
		Queue:  QueueJobs{Queue: s.Jobs, Store: s.DB},
		Usage:  s.Installation().UsageSummary,
	}
}

// focusNow chooses focus on the catalog as it is when asked and on the
// plugin store (C6).
type focusNow struct {
	c       *catalog.Catalog
	dataDir string
}

func (f focusNow) Focus(name, description string) []string {
	return app.FocusOn(f.c.View(), f.dataDir).Focus(name, description)
}
