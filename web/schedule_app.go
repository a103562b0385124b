package web

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
)

// ScheduleTab is the Schedule tab over the running session: the app
// layer's schedule (the running scheduler's, else as `schedule list`
// loads it), its runs started in the background, and the pauses
// `schedule pause` sets.
func ScheduleTab(s *app.Session) Schedule {
	return &scheduleTab{s: s, in: s.Installation(), running: map[string]bool{}}
}

type scheduleTab struct {
	s  *app.Session
	in *app.Installation

	mu sync.Mutex
	// running are the skills whose run this tab started and that have
	// not ended: a second press does not start a second run.
	running map[string]bool
}

// warn reports what the schedule could not read where the service
// reports unreadable skills.
func (t *scheduleTab) warn(lines []string) {
	for _, l := range lines {
		fmt.Fprintln(t.s.Warn, l)
	}
}

func (t *scheduleTab) List(ctx context.Context) (ScheduleList, error) {
	sch, err := t.in.Schedule(ctx)
	t.warn(sch.Warnings)
	if err != nil {
		return ScheduleList{}, err
	}
	owner := t.in.Config.Location()
	out := ScheduleList{Running: sch.Running, Zone: zoneName(owner, t.in.Env.Now())}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range sch.Entries {
		loc := owner
		if e.Entry.Zone != "" {
			if l, err := time.LoadLocation(e.Entry.Zone); err == nil {
				loc = l
			}
		}
		we := ScheduleEntry{Skill: e.Entry.Skill, Spec: e.Entry.Spec, Zone: e.Entry.Zone, Next: e.Next.In(loc), Paused: e.Paused, Running: t.running[e.Entry.Skill]}
		if e.Err != nil {
			we.Err = e.Err.Error()
		}
		if r := e.Last; r != nil {
			we.Last = &ScheduleRun{Due: r.DueAt.In(loc), Started: r.StartedAt.In(loc), Finished: r.FinishedAt.In(loc),
				Outcome: r.Outcome, Error: r.Error, Report: r.Report, Chat: r.Chat,
				Delivery: r.Delivery, DeliveryError: r.DeliveryError, Attempts: r.Attempts}
		}
		out.Entries = append(out.Entries, we)
	}
	return out, nil
}

// RunNow starts the skill's run in the background, as `schedule run` and
// the MCP surface's run_scheduled run it, once at a time.
func (t *scheduleTab) RunNow(ctx context.Context, skill string) error {
	return t.in.StartScheduled(ctx, skill, func() (func(), error) {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.running[skill] {
			return nil, jarvisbot.Errorf(jarvisbot.ECONFLICT, "%s is running already: its outcome shows on the Schedule page when it ends", skill)
		}
		t.running[skill] = true
		return func() {
			t.mu.Lock()
			delete(t.running, skill)
			t.mu.Unlock()
		}, nil
	})
}

func (t *scheduleTab) SetPaused(ctx context.Context, skill string, paused bool) (string, error) {
	r, err := t.in.PauseScheduled(ctx, skill, paused)
	t.warn(r.Warnings)
	if err != nil {
		return "", err
	}
	if paused {
		return skill + " is paused.", nil
	}
	return skill + " is resumed.", nil
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
