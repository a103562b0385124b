package main

import (
	"context"
	"fmt"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/mcp/backend"
	"github.com/jarvisbot/jarvisbot/mcp/surface"
)

// focusNow chooses focus on the catalog as it is when asked (C6).
type focusNow struct{ c *catalog.Catalog }

func (f focusNow) Focus(name, description string) []string {
	return f.c.View().Focus(name, description)
}

// backend is the running session as the MCP surface sees it (M4).
func (a *cli) backend(cfg config.Config, s *app.Session) *backend.Service {
	b := &backend.Service{
		Store:   s.DB,
		Catalog: s.Catalog.View,
		Engine:  s.Approvals,
		Focus:   focusNow{s.Catalog},
		SkillList: func(ctx context.Context) ([]surface.Skill, error) {
			return s.SkillList(ctx)
		},
		ScheduleList: func(ctx context.Context) ([]surface.ScheduleEntry, error) {
			if s.Scheduler == nil {
				return nil, nil
			}
			var out []surface.ScheduleEntry
			for _, e := range s.Scheduler.List(ctx) {
				se := surface.ScheduleEntry{Skill: e.Entry.Skill, Schedule: e.Entry.Spec, Next: e.Next, Paused: e.Paused}
				if e.Last != nil {
					se.Last = fmt.Sprintf("%s %s, report %s", e.Last.DueAt.Format("2006-01-02 15:04"), e.Last.Outcome, e.Last.Delivery)
				}
				out = append(out, se)
			}
			return out, nil
		},
		RunNow: func(ctx context.Context, skill string) (string, error) {
			if s.Scheduler == nil {
				return "", fmt.Errorf("the schedule is not running")
			}
			// The owner's pause of a skill is the owner's to lift (X5): an
			// app does not run it meanwhile.
			st, err := s.DB.ScheduleState(ctx, skill)
			if err != nil {
				return "", fmt.Errorf("reading whether the owner paused %s: %w", skill, err)
			}
			if st.Paused {
				return "", jarvisbot.Errorf(jarvisbot.EFORBIDDEN, "the owner paused the scheduled skill %s: it does not run, for apps either, until the owner resumes it", skill)
			}
			r, err := s.Scheduler.RunNow(ctx, skill)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%s ran: %s (report %s to %s)", skill, r.Outcome, r.Delivery, r.Chat), nil
		},
		Notify: func(ctx context.Context, n backend.Notice) error {
			return s.NotifyOwner(ctx, app.MainChat(cfg), n)
		},
		Paused: s.SetPaused,
		Queue:  backend.QueueJobs{Queue: s.Jobs, Store: s.DB},
	}
	if a.Clock != nil {
		b.Now = a.Clock.Now
	}
	return b
}
