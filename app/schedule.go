package app

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/scheduler"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// ScheduledEntries are the enabled skills that carry a schedule. Imported
// skills never do: the importer drops their schedules (S6).
func ScheduledEntries(ctx context.Context, cfg config.Config, db interface {
	store.SkillSwitches
	store.Plugins
}, warn io.Writer) ([]scheduler.Entry, error) {
	on := map[string]bool{}
	if err := collection.AddInstalled(ctx, db, on); err != nil {
		return nil, err
	}
	// Plugin manuals carry no schedules: the collection need not be read.
	list, err := skills.Enabled(ctx, db, skills.Scope{DataDir: cfg.DataDir, Agent: store.DefaultAgent, Connected: on}, warn)
	if err != nil {
		return nil, err
	}
	return scheduler.Entries(list, store.DefaultAgent), nil
}

// MainChat is the owner's main chat: the first configured owner's private
// chat, else the console.
func MainChat(cfg config.Config) string {
	if ids := OwnerIDs(cfg); len(ids) > 0 {
		return ids[0]
	}
	return "console"
}

// skillRunner runs scheduled skills on the runtime; whether an agent has
// a model is asked without building it.
func (a *Env) SkillRunner(ctx context.Context, cfg config.Config, s *Service) scheduler.Runner {
	rt := s.Runtime
	return scheduler.SkillRunner(scheduler.Turns{
		Ready: func(agent string) error {
			// pause_all: no agent starts a turn, scheduled ones included (M4).
			if p, by := s.pausedNow(); p {
				return fmt.Errorf("jarvisbot is paused (by %s); resume it to run scheduled skills", by)
			}
			_, err := a.ChooseModel(ctx, cfg, agent)
			return err
		},
		Turn: func(ctx context.Context, p scheduler.Prompt) (string, error) {
			res, err := rt.Turn(ctx, agents.Input{Agent: p.Agent, Chat: p.Chat, Text: p.Text})
			return res.Text, err
		},
	})
}

func WriteSchedule(w io.Writer, list []scheduler.Status) error {
	if len(list) == 0 {
		fmt.Fprintln(w, "No scheduled skills. A skill gets a schedule with metadata jarvisbot.schedule, e.g. \"0 7 * * *\".")
		return nil
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "skill\tschedule\tnext\tlast run")
	for _, e := range list {
		next := e.Next.Local().Format("2006-01-02 15:04")
		if e.Paused {
			next = "paused"
		}
		last := "never"
		switch {
		case e.Err != nil:
			next, last = "unknown", "unknown: "+e.Err.Error()
		case e.Last != nil && e.Last.Outcome == "not-run":
			last = fmt.Sprintf("%s not run (%s)", e.Last.DueAt.Local().Format("2006-01-02 15:04"), scheduler.ErrNoModel)
		case e.Last != nil:
			last = fmt.Sprintf("%s %s, report %s", e.Last.DueAt.Local().Format("2006-01-02 15:04"), e.Last.Outcome, e.Last.Delivery)
		}
		spec := e.Entry.Spec
		if e.Entry.Zone != "" {
			spec += " (" + e.Entry.Zone + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Entry.Skill, spec, next, last)
	}
	return tw.Flush()
}
