package app

import (
	"context"
	"testing"

	"github.com/jarvisbot/jarvisbot"
)

// TestScheduleWithoutSchedulerSC1: a one-off command lists the scheduled
// skills loaded, not run; pauses and resumes one in the store; refuses a
// skill with no schedule, naming those that have one; and cannot start a
// run in the background, which needs serve's scheduler.
func TestScheduleWithoutSchedulerSC1(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	paused := func() (bool, bool) {
		sch, err := in.Schedule(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if sch.Running {
			t.Errorf("a one-off command's schedule says a scheduler runs")
		}
		for _, e := range sch.Entries {
			if e.Entry.Skill == "morning-brief" {
				return e.Paused, true
			}
		}
		return false, false
	}
	if p, ok := paused(); !ok || p {
		t.Fatalf("morning-brief listed %v, paused %v; want listed, not paused", ok, p)
	}
	r, err := in.PauseScheduled(ctx, "morning-brief", true)
	if err != nil || !r.Paused || r.Skill != "morning-brief" {
		t.Fatalf("pause: %+v, %v", r, err)
	}
	if p, _ := paused(); !p {
		t.Errorf("morning-brief is not paused after the pause")
	}
	if _, err := in.PauseScheduled(ctx, "morning-brief", false); err != nil {
		t.Fatal(err)
	}
	if p, _ := paused(); p {
		t.Errorf("morning-brief is paused after the resume")
	}
	if _, err := in.PauseScheduled(ctx, "no-such-skill", true); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("pausing a skill with no schedule: %v", err)
	}
	if err := in.StartScheduled(ctx, "morning-brief", nil); err != ErrNotScheduling {
		t.Errorf("a background run without a scheduler: %v", err)
	}
}

// TestScheduledEntriesShareTheTurnsSkills: serve's schedule is read from
// the shipped general skills its turns read, so the first turn does not
// parse them a second time; the entries are those a one-off command reads.
func TestScheduledEntriesShareTheTurnsSkills(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	s := &Service{Config: in.Config, DB: in.DB, shipped: &shippedSkills{Config: in.Config, Warn: in.Env.Stderr}}
	got, err := s.scheduledEntries(ctx, in.Env.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ScheduledEntries(ctx, in.Config, in.DB, in.Env.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || len(got) != len(want) {
		t.Fatalf("%d entries, want the %d a one-off command reads (and some)", len(got), len(want))
	}
	if s.shipped.general == nil {
		t.Error("the schedule was read without leaving the general skills read for the turns")
	}
	for i, e := range got {
		if e.Skill != want[i].Skill || e.Spec != want[i].Spec {
			t.Errorf("entry %d is %s (%s), want %s (%s)", i, e.Skill, e.Spec, want[i].Skill, want[i].Spec)
		}
	}
}
