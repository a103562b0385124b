package main

import (
	"context"
	"sync"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/scheduler"
	"github.com/jarvisbot/jarvisbot/web"
)

// webSchedule is the dashboard's Schedule tab over this session: the
// running scheduler's list, its RunNow, and the pause switch `schedule
// pause` sets.
func (a *cli) webSchedule(cfg config.Config, s *app.Session) web.Schedule {
	return &scheduleTab{a: a, cfg: cfg, s: s, running: map[string]bool{}}
}

type scheduleTab struct {
	a   *cli
	cfg config.Config
	s   *app.Session

	mu sync.Mutex
	// running are the skills whose run this tab started and that have
	// not ended: a second press does not start a second run.
	running map[string]bool
}

// errNotScheduling says why Run now cannot work here.
var errNotScheduling = jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "the scheduler is not running in this process: start jarvisbot serve, or run the skill with jarvisbot schedule run NAME")

// entries are the schedule: the running scheduler's, else as `schedule
// list` loads it.
func (t *scheduleTab) entries(ctx context.Context) ([]scheduler.Status, error) {
	if t.s.Scheduler != nil {
		return t.s.Scheduler.List(ctx), nil
	}
	return loadedSchedule(ctx, t.a, t.cfg, t.s.DB, t.s.Warn)
}

func (t *scheduleTab) List(ctx context.Context) (web.ScheduleList, error) {
	list, err := t.entries(ctx)
	if err != nil {
		return web.ScheduleList{}, err
	}
	owner := t.cfg.Location()
	out := web.ScheduleList{Running: t.s.Scheduler != nil, Zone: zoneName(owner, t.a.Now())}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range list {
		loc := owner
		if e.Entry.Zone != "" {
			if l, err := time.LoadLocation(e.Entry.Zone); err == nil {
				loc = l
			}
		}
		we := web.ScheduleEntry{Skill: e.Entry.Skill, Spec: e.Entry.Spec, Zone: e.Entry.Zone, Next: e.Next.In(loc), Paused: e.Paused, Running: t.running[e.Entry.Skill]}
		if e.Err != nil {
			we.Err = e.Err.Error()
		}
		if r := e.Last; r != nil {
			we.Last = &web.ScheduleRun{Due: r.DueAt.In(loc), Started: r.StartedAt.In(loc), Finished: r.FinishedAt.In(loc),
				Outcome: r.Outcome, Error: r.Error, Report: r.Report, Chat: r.Chat,
				Delivery: r.Delivery, DeliveryError: r.DeliveryError, Attempts: r.Attempts}
		}
		out.Entries = append(out.Entries, we)
	}
	return out, nil
}

// RunNow runs the skill through the running scheduler, as `schedule run`
// and the MCP surface's run_scheduled do, in the background: a turn may
// take minutes, or wait for the owner's approval. The run belongs to the
// session's work, which ends (the run recorded interrupted) and is
// waited for when serve stops.
func (t *scheduleTab) RunNow(ctx context.Context, skill string) error {
	sched := t.s.Scheduler
	if sched == nil {
		return errNotScheduling
	}
	names, err := t.names(ctx)
	if err != nil {
		return err
	}
	if err := checkScheduled(names, skill); err != nil {
		return err
	}
	if t.s.Work.Err() != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "jarvisbot is stopping: %s does not start now", skill)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.running[skill] {
		return jarvisbot.Errorf(jarvisbot.ECONFLICT, "%s is running already: its outcome shows on the Schedule page when it ends", skill)
	}
	t.running[skill] = true
	t.s.WG.Add(1)
	go func() {
		defer t.s.WG.Done()
		defer func() {
			t.mu.Lock()
			delete(t.running, skill)
			t.mu.Unlock()
		}()
		// The outcome is in the store, where the page reads it; the log
		// says what the owner may have missed.
		r, err := sched.RunNow(t.s.Work, skill)
		if err == nil {
			err = scheduler.RunError(r)
		}
		if err != nil {
			t.s.Log.Warn("a scheduled skill run from the dashboard did not succeed", "skill", skill, "err", err)
		}
	}()
	return nil
}

// names are the scheduled skills: the running scheduler's, else those
// `schedule pause` knows.
func (t *scheduleTab) names(ctx context.Context) ([]string, error) {
	var names []string
	if t.s.Scheduler != nil {
		for _, e := range t.s.Scheduler.List(ctx) {
			names = append(names, e.Entry.Skill)
		}
	} else {
		entries, err := app.ScheduledEntries(ctx, t.cfg, t.s.DB, t.s.Warn)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			names = append(names, e.Skill)
		}
	}
	return names, nil
}

func (t *scheduleTab) SetPaused(ctx context.Context, skill string, paused bool) (string, error) {
	names, err := t.names(ctx)
	if err != nil {
		return "", err
	}
	return pauseScheduled(ctx, t.s.DB, names, skill, paused)
}

// zoneName names loc for the page: its IANA name, or the machine's zone
// and its abbreviation now.
func zoneName(loc *time.Location, now time.Time) string {
	if loc != time.Local {
		return loc.String()
	}
	abbr, _ := now.In(loc).Zone()
	return "this machine's time zone (" + abbr + ")"
}
