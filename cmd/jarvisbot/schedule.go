package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/channels/console"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/scheduler"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// scheduledEntries are the enabled skills that carry a schedule. Imported
// skills never do: the importer drops their schedules (S6).
func scheduledEntries(ctx context.Context, cfg config.Config, db interface {
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

// mainChat is the owner's main chat: the first configured owner's private
// chat, else the console.
func mainChat(cfg config.Config) string {
	if ids := ownerIDs(cfg); len(ids) > 0 {
		return ids[0]
	}
	return "console"
}

// skillRunner runs scheduled skills on the runtime; whether an agent has
// a model is asked without building it.
func (a *app) skillRunner(ctx context.Context, cfg config.Config, s *service) scheduler.Runner {
	rt := s.rt
	return scheduler.SkillRunner(scheduler.Turns{
		Ready: func(agent string) error {
			// pause_all: no agent starts a turn, scheduled ones included (M4).
			if p, by := s.pausedNow(); p {
				return fmt.Errorf("jarvisbot is paused (by %s); resume it to run scheduled skills", by)
			}
			_, err := a.chooseModel(ctx, cfg, agent)
			return err
		},
		Turn: func(ctx context.Context, p scheduler.Prompt) (string, error) {
			res, err := rt.Turn(ctx, agents.Input{Agent: p.Agent, Chat: p.Chat, Text: p.Text})
			return res.Text, err
		},
	})
}

// cmdSchedule: the scheduled skills (SC1). Only `run` starts the service
// (MCP servers, the runtime); list, pause and resume read and write the
// store.
func cmdSchedule(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "schedule", "schedule list | run NAME | pause NAME | resume NAME")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		pos = []string{"list"}
	}
	switch {
	case pos[0] == "list" && len(pos) == 1, pos[0] == "run" && len(pos) == 2,
		(pos[0] == "pause" || pos[0] == "resume") && len(pos) == 2:
	default:
		return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot schedule list | run NAME | pause NAME | resume NAME")
	}
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	if pos[0] == "run" {
		return runScheduled(ctx, a, cfg, pos[1])
	}
	db, err := a.openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	if pos[0] == "list" {
		list, err := loadedSchedule(ctx, a, cfg, db, a.stderr)
		if err != nil {
			return err
		}
		return writeSchedule(a.stdout, list)
	}
	entries, err := scheduledEntries(ctx, cfg, db, a.stderr)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Skill)
	}
	note, err := pauseScheduled(ctx, db, names, pos[1], pos[0] == "pause")
	if err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, note)
	return nil
}

// loadedSchedule is the schedule where no scheduler runs (`schedule
// list`): the entries loaded without catching up or arming, which the
// service does. An entry that cannot be scheduled is reported to warn.
func loadedSchedule(ctx context.Context, a *app, cfg config.Config, db *sqlstore.DB, warn io.Writer) ([]scheduler.Status, error) {
	entries, err := scheduledEntries(ctx, cfg, db, warn)
	if err != nil {
		return nil, err
	}
	sch := scheduler.New(scheduler.Options{Store: db, Clock: a.clock, Zone: cfg.Location(), MainChat: mainChat(cfg)})
	if err := sch.Load(entries); err != nil {
		fmt.Fprintln(warn, "jarvisbot:", err)
	}
	return sch.List(ctx), nil
}

// pauseScheduled pauses or resumes the scheduled skill name, one of
// scheduled, and says so (`schedule pause`/`resume`, the dashboard). The
// switch is in the store, where a running scheduler reads it at the
// skill's next time.
func pauseScheduled(ctx context.Context, db store.Schedules, scheduled []string, name string, pause bool) (string, error) {
	if err := checkScheduled(scheduled, name); err != nil {
		return "", err
	}
	if _, err := db.UpdateScheduleState(ctx, name, func(st *store.ScheduleState) { st.Paused = pause }); err != nil {
		return "", err
	}
	if pause {
		return name + " is paused.", nil
	}
	return name + " is resumed.", nil
}

// checkScheduled says, when name is not one of the scheduled skills,
// which are.
func checkScheduled(scheduled []string, name string) error {
	if !slices.Contains(scheduled, name) {
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no scheduled skill named %s (scheduled: %s); jarvisbot schedule list shows them", name, strings.Join(scheduled, ", "))
	}
	return nil
}

// runScheduled runs one scheduled skill now, its report printed here and
// its ask-tier calls asked at this terminal: the console, taking answers
// only, through the same desk as serve. The report also goes to the
// owner's main chat, as on the clock, when that chat's bot is set up: the
// bot only sends, so a running serve keeps receiving.
func runScheduled(ctx context.Context, a *app, cfg config.Config, name string) error {
	log := a.logger(cfg)
	bots, err := a.botChannels(ctx, cfg, nil)
	if err != nil {
		// The run still reports here; the chat is what cannot be reached.
		log.Warn("the report goes to this terminal only: the owner's chat cannot be reached", "err", err)
	}
	con := console.New(a.stdin, a.stdout, console.Options{AnswersOnly: true, EndKey: denyKey})
	s, err := a.openSession(ctx, cfg, log, sessionOptions{agent: store.DefaultAgent, approvalChat: console.Chat},
		func(*service) ([]channels.Channel, error) { return []channels.Channel{con}, nil })
	if err != nil {
		return err
	}
	defer s.Close()
	defer con.Wait() // the answers of its own presses, before the store closes
	if err := s.service.resume(ctx); err != nil {
		return err
	}
	s.connect(ctx)
	entries, err := scheduledEntries(ctx, cfg, s.db, a.stderr)
	if err != nil {
		return err
	}
	sch := scheduler.New(scheduler.Options{Store: s.db, Clock: a.clock, Zone: cfg.Location(), MainChat: mainChat(cfg), Run: a.skillRunner(ctx, cfg, s.service), Logger: log,
		// The report goes through the console, the terminal's one writer.
		Deliver: func(ctx context.Context, chat, text string) error {
			for _, b := range bots {
				if strings.HasPrefix(chat, b.Name()+":") {
					if _, err := b.Send(ctx, channels.Outgoing{Chat: chat, Text: text}); err != nil {
						return err
					}
				}
			}
			_, err := con.Send(ctx, channels.Outgoing{Chat: console.Chat, Text: fmt.Sprintf("[report for %s]\n%s", chat, text)})
			return err
		}})
	if err := sch.Load(entries); err != nil {
		fmt.Fprintln(a.stderr, "jarvisbot:", err)
	}
	defer sch.Stop(context.Background())
	recv, stopRecv := context.WithCancel(ctx)
	ends := s.listen(recv)
	r, err := sch.RunNow(ctx, name)
	stopRecv()
	<-ends
	s.desk.Drain(ctx) // nothing was queued: it only ends the desk's work
	if err != nil {
		return err
	}
	return scheduler.RunError(r)
}

func writeSchedule(w io.Writer, list []scheduler.Status) error {
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
