package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/mcp/backend"
	"github.com/jarvisbot/jarvisbot/mcp/surface"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// focusNow chooses focus on the catalog as it is when asked (C6).
type focusNow struct{ c *catalog.Catalog }

func (f focusNow) Focus(name, description string) []string {
	return f.c.View().Focus(name, description)
}

// backend is the running session as the MCP surface sees it (M4).
func (a *app) backend(cfg config.Config, s *session) *backend.Service {
	b := &backend.Service{
		Store:   s.db,
		Catalog: s.catalog.View,
		Engine:  s.engine,
		Focus:   focusNow{s.catalog},
		SkillList: func(ctx context.Context) ([]surface.Skill, error) {
			return s.skillList(ctx)
		},
		ScheduleList: func(ctx context.Context) ([]surface.ScheduleEntry, error) {
			if s.sched == nil {
				return nil, nil
			}
			var out []surface.ScheduleEntry
			for _, e := range s.sched.List(ctx) {
				se := surface.ScheduleEntry{Skill: e.Entry.Skill, Schedule: e.Entry.Spec, Next: e.Next, Paused: e.Paused}
				if e.Last != nil {
					se.Last = fmt.Sprintf("%s %s, report %s", e.Last.DueAt.Format("2006-01-02 15:04"), e.Last.Outcome, e.Last.Delivery)
				}
				out = append(out, se)
			}
			return out, nil
		},
		RunNow: func(ctx context.Context, skill string) (string, error) {
			if s.sched == nil {
				return "", fmt.Errorf("the schedule is not running")
			}
			// The owner's pause of a skill is the owner's to lift (X5): an
			// app does not run it meanwhile.
			st, err := s.db.ScheduleState(ctx, skill)
			if err != nil {
				return "", fmt.Errorf("reading whether the owner paused %s: %w", skill, err)
			}
			if st.Paused {
				return "", jarvisbot.Errorf(jarvisbot.EFORBIDDEN, "the owner paused the scheduled skill %s: it does not run, for apps either, until the owner resumes it", skill)
			}
			r, err := s.sched.RunNow(ctx, skill)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%s ran: %s (report %s to %s)", skill, r.Outcome, r.Delivery, r.Chat), nil
		},
		Notify: func(ctx context.Context, n backend.Notice) error {
			return s.notifyOwner(ctx, mainChat(cfg), n)
		},
		Paused: s.setPaused,
		Queue:  backend.QueueJobs{Queue: s.jobs, Store: s.db},
	}
	if a.clock != nil {
		b.Now = a.clock.Now
	}
	return b
}

// skillList is every skill with its switch, kind and source, as /skills.
func (s *service) skillList(ctx context.Context) ([]surface.Skill, error) {
	on := map[string]bool{}
	if err := collection.AddInstalled(ctx, s.db, on); err != nil {
		return nil, err
	}
	sc, err := skillScope(s.cfg, store.DefaultAgent, on, io.Discard)
	if err != nil {
		return nil, err
	}
	all, err := skills.Gather(ctx, s.db, sc, io.Discard)
	if err != nil {
		return nil, err
	}
	out := make([]surface.Skill, 0, len(all))
	for _, e := range all {
		out = append(out, surface.Skill{Name: e.Skill.Name, Description: e.Skill.Description, Enabled: e.On, Off: e.Why, Kind: string(e.Skill.Does), Source: string(e.Source), Schedule: e.Skill.Schedule})
	}
	return out, nil
}

// pausedNow is pause_all's state, for the desk.
func (s *service) pausedNow() (bool, string) {
	s.pauseMu.Lock()
	defer s.pauseMu.Unlock()
	return s.paused, s.pausedBy
}

// loadPause reads pause_all's state as the last run left it.
func (s *service) loadPause(ctx context.Context) error {
	p, by, _, err := s.db.Paused(ctx)
	if err != nil {
		return err
	}
	s.pauseMu.Lock()
	s.paused, s.pausedBy = p, by
	s.pauseMu.Unlock()
	return nil
}

// setPaused takes up a pause or a resume the store has recorded: on a
// resume, the chats and jobs that waited start.
func (s *session) setPaused(p bool) {
	if err := s.loadPause(context.Background()); err != nil {
		s.log.Error("reading whether jarvisbot is paused", "err", err)
		s.pauseMu.Lock()
		s.paused = p
		s.pauseMu.Unlock()
	}
	if !p {
		s.desk.Resumed()
		s.jobs.Resume()
	}
}

// notifyOwner sends an app's notice to chat on its channel, as written
// (X5): the file where the notice has one and the channel takes files,
// else the text. The app hears of a failure and may send it again; the
// desk's kept replies would send it again as the model's Markdown.
func (s *session) notifyOwner(ctx context.Context, chat string, n backend.Notice) error {
	name, _, _ := strings.Cut(chat, ":")
	var ch channels.Channel
	for _, c := range s.chans {
		if c.Name() == name {
			ch = c
		}
	}
	if ch == nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "the owner's chat %s has no channel running in this jarvisbot; try again when serve runs it", chat)
	}
	if ds, ok := ch.(channels.DocumentSender); ok && n.File != nil {
		if _, err := ds.SendDocument(ctx, channels.Document{Chat: chat, Name: n.FileName, Data: n.File, Caption: n.Caption}); err != nil {
			return fmt.Errorf("sending the notice to the owner's chat as a file: %w", err)
		}
		return nil
	}
	if _, err := ch.Send(ctx, channels.Outgoing{Chat: chat, Text: n.Text, Plain: true}); err != nil {
		return fmt.Errorf("sending the notice to the owner's chat: %w", err)
	}
	return nil
}
