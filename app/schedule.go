package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/scheduler"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// scheduleStore is what ScheduledEntries reads of the store.
type scheduleStore interface {
	store.SkillSwitches
	store.Plugins
}

// ScheduledEntries are the enabled skills that carry a schedule. Imported
// skills never do: the importer drops their schedules (S6).
func ScheduledEntries(ctx context.Context, cfg config.Config, db scheduleStore, warn io.Writer) ([]scheduler.Entry, error) {
	return scheduledEntries(ctx, cfg, db, nil, warn)
}

// scheduledEntries is ScheduledEntries with the shipped general skills
// already read (nil reads them from the binary).
func scheduledEntries(ctx context.Context, cfg config.Config, db scheduleStore, general []*skills.Skill, warn io.Writer) ([]scheduler.Entry, error) {
	on := map[string]bool{}
	if err := collection.AddInstalled(ctx, db, on); err != nil {
		return nil, err
	}
	// Plugin manuals carry no schedules: the collection need not be read.
	list, err := skills.Enabled(ctx, db, skills.Scope{DataDir: cfg.DataDir, Agent: store.DefaultAgent, Connected: on, General: general}, warn)
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
	rt := s.runtime
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
			res, err := rt.Turn(ctx, agents.Input{Agent: p.Agent, Chat: p.Chat, Text: p.Text, Schedule: p.Skill})
			return res.Text, overBudgetRun(err)
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

// Schedule is the scheduled skills as a door shows them (SC1).
type Schedule struct {
	// Running says a scheduler runs in this process: skills run at their
	// times, and StartScheduled and RunScheduledForApp work.
	Running bool
	Entries []scheduler.Status
	// Warnings say which skills could not be read or scheduled, one line
	// each.
	Warnings []string
}

// ErrNotScheduling says why a skill cannot be run in the background here.
var ErrNotScheduling = jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "the scheduler is not running in this process: start jarvisbot serve, or run the skill with jarvisbot schedule run NAME")

// scheduler is the running service's scheduler; nil in a one-off
// command, or before serve starts it.
func (in *Installation) scheduler() *scheduler.Scheduler {
	if in.Live == nil {
		return nil
	}
	return in.Live.scheduler
}

// Schedule is the running scheduler's list, else the entries loaded without
// catching up or arming them, which only the service does: `schedule
// list` starts nothing.
func (in *Installation) Schedule(ctx context.Context) (Schedule, error) {
	if sch := in.scheduler(); sch != nil {
		return Schedule{Running: true, Entries: sch.List(ctx)}, nil
	}
	var warn bytes.Buffer
	entries, err := ScheduledEntries(ctx, in.Config, in.DB, &warn)
	if err != nil {
		return Schedule{Warnings: warningsOf(&warn)}, err
	}
	sch := scheduler.New(scheduler.Options{Store: in.DB, Clock: in.Env.Clock, Zone: in.Config.Location(), MainChat: MainChat(in.Config)})
	if err := sch.Load(entries); err != nil {
		fmt.Fprintln(&warn, "jarvisbot:", err)
	}
	return Schedule{Entries: sch.List(ctx), Warnings: warningsOf(&warn)}, nil
}

// ScheduledPause is a scheduled skill paused or resumed by the owner.
type ScheduledPause struct {
	Skill  string
	Paused bool
	// Warnings say which skills could not be read, one line each.
	Warnings []string
}

// PauseScheduled pauses or resumes the scheduled skill name (`schedule
// pause`/`resume`, the dashboard). The switch is in the store, where a
// running scheduler reads it at the skill's next time.
func (in *Installation) PauseScheduled(ctx context.Context, name string, pause bool) (ScheduledPause, error) {
	out := ScheduledPause{Skill: name, Paused: pause}
	names, err := in.scheduledNames(ctx, &out.Warnings)
	if err != nil {
		return out, err
	}
	if err := checkScheduled(names, name); err != nil {
		return out, err
	}
	_, err = in.DB.UpdateScheduleState(ctx, name, func(st *store.ScheduleState) { st.Paused = pause })
	return out, err
}

// scheduledNames are the scheduled skills: the running scheduler's, else
// the enabled skills that carry a schedule.
func (in *Installation) scheduledNames(ctx context.Context, warned *[]string) ([]string, error) {
	var names []string
	if sch := in.scheduler(); sch != nil {
		for _, e := range sch.List(ctx) {
			names = append(names, e.Entry.Skill)
		}
		return names, nil
	}
	var warn bytes.Buffer
	entries, err := ScheduledEntries(ctx, in.Config, in.DB, &warn)
	*warned = warningsOf(&warn)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		names = append(names, e.Skill)
	}
	return names, nil
}

// checkScheduled says, when name is not one of the scheduled skills,
// which are.
func checkScheduled(scheduled []string, name string) error {
	if !slices.Contains(scheduled, name) {
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no scheduled skill named %s (scheduled: %s); jarvisbot schedule list shows them", name, strings.Join(scheduled, ", "))
	}
	return nil
}

// StartScheduled starts skill's run through the running scheduler and
// returns without waiting for it: a turn may take minutes, or wait for
// the owner's approval. The outcome is in the store, where the schedule
// shows it; a failure is also logged. claim, when not nil, is asked last
// and may refuse (a run of skill already going); its release is called
// when the run ends. The run belongs to the service's work, which ends
// it (the run recorded interrupted) and waits for it when serve stops.
func (in *Installation) StartScheduled(ctx context.Context, skill string, claim func() (release func(), err error)) error {
	sched := in.scheduler()
	if sched == nil {
		return ErrNotScheduling
	}
	var warned []string
	names, err := in.scheduledNames(ctx, &warned)
	if err != nil {
		return err
	}
	if err := checkScheduled(names, skill); err != nil {
		return err
	}
	s := in.Live
	if s.work.Err() != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "jarvisbot is stopping: %s does not start now", skill)
	}
	release := func() {}
	if claim != nil {
		if release, err = claim(); err != nil {
			return err
		}
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer release()
		r, err := sched.RunNow(s.work, skill)
		if err == nil {
			err = scheduler.RunError(r)
		}
		if err != nil {
			s.log.Warn("a scheduled skill run from the dashboard did not succeed", "skill", skill, "err", err)
		}
	}()
	return nil
}

// Scheduled is the running scheduler's list, for an app; nil when no
// scheduler runs in this process.
func (s *Service) Scheduled(ctx context.Context) []scheduler.Status {
	if s.scheduler == nil {
		return nil
	}
	return s.scheduler.List(ctx)
}

// RunScheduledForApp runs a scheduled skill now, for an app, and returns
// its run. The owner's pause of a skill is the owner's to lift (X5): an
// app does not run it meanwhile.
func (s *Service) RunScheduledForApp(ctx context.Context, skill string) (store.Run, error) {
	if s.scheduler == nil {
		return store.Run{}, errors.New("the schedule is not running")
	}
	st, err := s.DB.ScheduleState(ctx, skill)
	if err != nil {
		return store.Run{}, fmt.Errorf("reading whether the owner paused %s: %w", skill, err)
	}
	if st.Paused {
		return store.Run{}, jarvisbot.Errorf(jarvisbot.EFORBIDDEN, "the owner paused the scheduled skill %s: it does not run, for apps either, until the owner resumes it", skill)
	}
	return s.scheduler.RunNow(ctx, skill)
}

// RunScheduled runs one scheduled skill now in this session, which runs
// no scheduler of its own (`schedule run`): its ask-tier calls are asked
// on the session's channels, which listen while it runs, and deliver
// takes its report, as the clock's run would send it to chat. Skills
// that cannot be read or scheduled are reported to the service's
// warnings. scheduler.RunError says whether the run succeeded.
func (s *Session) RunScheduled(ctx context.Context, skill string, deliver func(ctx context.Context, chat, text string) error) (store.Run, error) {
	entries, err := s.scheduledEntries(ctx, s.Warn)
	if err != nil {
		return store.Run{}, err
	}
	sch := scheduler.New(scheduler.Options{Store: s.DB, Clock: s.env.Clock, Zone: s.Config.Location(), MainChat: MainChat(s.Config),
		Run: s.env.SkillRunner(ctx, s.Config, s.Service), Logger: s.log, Deliver: deliver})
	if err := sch.Load(entries); err != nil {
		fmt.Fprintln(s.Warn, "jarvisbot:", err)
	}
	defer sch.Stop(context.Background())
	recv, stopRecv := context.WithCancel(ctx)
	ends := s.Listen(recv)
	r, err := sch.RunNow(ctx, skill)
	stopRecv()
	<-ends
	s.Desk.Drain(ctx) // nothing was queued: it only ends the desk's work
	return r, err
}
