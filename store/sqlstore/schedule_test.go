package sqlstore

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestArmSchedulesKeepsFirstArmedSC1: a schedule armed again on the same
// spec and zone keeps the time it was first armed; a new skill, a changed
// spec or zone, or a skill left out once and back is armed anew.
func TestArmSchedulesKeepsFirstArmedSC1(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	day := func(d int) time.Time { return time.Date(2026, 12, d, 6, 0, 0, 0, time.UTC) }
	brief := store.ScheduleSpec{Skill: "morning-brief", Spec: "0 7 * * *", Zone: "Europe/Berlin"}
	poll := store.ScheduleSpec{Skill: "poll", Spec: "@every 1m"}
	for _, step := range []struct {
		at    time.Time
		specs []store.ScheduleSpec
		want  map[string]time.Time
	}{
		{day(1), []store.ScheduleSpec{brief}, map[string]time.Time{"morning-brief": day(1)}},
		{day(2), []store.ScheduleSpec{brief, poll}, map[string]time.Time{"morning-brief": day(1), "poll": day(2)}},
		{day(3), []store.ScheduleSpec{{Skill: "morning-brief", Spec: "15 7 * * *", Zone: "Europe/Berlin"}, poll}, map[string]time.Time{"morning-brief": day(3), "poll": day(2)}},
		{day(4), []store.ScheduleSpec{{Skill: "morning-brief", Spec: "15 7 * * *"}, poll}, map[string]time.Time{"morning-brief": day(4), "poll": day(2)}},
		{day(5), []store.ScheduleSpec{poll}, map[string]time.Time{"poll": day(2)}},
		{day(6), []store.ScheduleSpec{brief, poll}, map[string]time.Time{"morning-brief": day(6), "poll": day(2)}},
		{day(7), nil, map[string]time.Time{}},
	} {
		got, err := db.ArmSchedules(ctx, step.at, step.specs)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(step.want) {
			t.Errorf("armed at %v: %v, want %v", step.at, got, step.want)
		}
		for skill, since := range step.want {
			if !got[skill].Equal(since) {
				t.Errorf("armed at %v: %s since %v, want %v", step.at, skill, got[skill], since)
			}
		}
	}
}

// TestUpdateScheduleStateIsAtomicSC1: changes made at the same time (runs
// recording failures, the owner pausing) are all kept.
func TestUpdateScheduleStateIsAtomicSC1(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	var wg sync.WaitGroup
	errs := make(chan error, 21)
	for range 20 {
		wg.Go(func() {
			_, err := db.UpdateScheduleState(ctx, "digest", func(st *store.ScheduleState) { st.Failures++ })
			errs <- err
		})
	}
	wg.Go(func() {
		_, err := db.UpdateScheduleState(ctx, "digest", func(st *store.ScheduleState) { st.Paused = true })
		errs <- err
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	st, err := db.ScheduleState(ctx, "digest")
	if err != nil || st.Failures != 20 || !st.Paused {
		t.Errorf("state %+v %v, want 20 failures and paused", st, err)
	}
	if _, err := db.UpdateScheduleState(ctx, " ", func(*store.ScheduleState) {}); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("a state without a skill: %v, want EINVALID", err)
	}
}

// TestScheduleMigrationKeepsRunsSC1: migration 0011 keeps the runs and the
// state recorded before it, ids go on after the last one, and a run can be
// recorded as not run.
func TestScheduleMigrationKeepsRunsSC1(t *testing.T) {
	ctx := context.Background()
	migs, err := loadMigrations(migrationFiles, testDialect())
	if err != nil {
		t.Fatal(err)
	}
	before := fstest.MapFS{}
	for _, m := range migs {
		if m.version < 11 {
			before["migrations/"+testDialect().String()+"/"+m.name] = migrationFile(t, m)
		}
	}
	path := testTarget(t)
	old, err := open(ctx, path, before)
	if err != nil {
		t.Fatal(err)
	}
	due := time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
	id, err := old.ClaimRun(ctx, store.Run{Skill: "morning-brief", DueAt: due, Outcome: "running", Chat: "telegram:1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := old.UpdateRun(ctx, store.Run{ID: id, Skill: "morning-brief", StartedAt: due, FinishedAt: due.Add(time.Minute), Outcome: "ok", Report: "Good morning", Chat: "telegram:1", Delivery: "sent", Attempts: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := old.db.ExecContext(ctx, `INSERT INTO schedule_state (skill, paused, failures, alerted) VALUES ('morning-brief', 1, 2, 0)`); err != nil {
		t.Fatal(err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}

	db := openTest(t, path)
	last, err := db.LastRun(ctx, "morning-brief")
	if err != nil || last.ID != id || last.Outcome != "ok" || last.Report != "Good morning" || last.Delivery != "sent" || !last.FinishedAt.Equal(due.Add(time.Minute)) {
		t.Errorf("after the migration: %+v %v", last, err)
	}
	if st, err := db.ScheduleState(ctx, "morning-brief"); err != nil || !st.Paused || st.Failures != 2 || st.ToldNotRun {
		t.Errorf("state after the migration: %+v %v", st, err)
	}
	next, err := db.ClaimRun(ctx, store.Run{Skill: "morning-brief", DueAt: due.Add(24 * time.Hour), Outcome: "not-run", Delivery: "none", Error: "no model is configured"})
	if err != nil || next <= id {
		t.Errorf("a not-run run: id %d after %d, %v", next, id, err)
	}
	if _, err := db.ClaimRun(ctx, store.Run{Skill: "morning-brief", DueAt: due, Outcome: "ok"}); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
		t.Errorf("a second run for the same time: %v, want ECONFLICT", err)
	}
}

// TestUnreadableRunIsAnErrorSC1: a run whose stored time cannot be read is
// an error naming the run, not a run at the zero time (which would read
// as "long ago" to the catch-up).
func TestUnreadableRunIsAnErrorSC1(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	if _, err := db.db.ExecContext(ctx, `INSERT INTO schedule_runs (skill, due_at, outcome) VALUES ('digest', 'yesterday', 'ok')`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.LastRun(ctx, "digest"); jarvisbot.ErrorCode(err) != jarvisbot.EINTERNAL || !strings.Contains(err.Error(), "digest") {
		t.Errorf("LastRun: %v, want an internal error naming the skill", err)
	}
	if _, err := db.Runs(ctx, "", 5); jarvisbot.ErrorCode(err) != jarvisbot.EINTERNAL || !strings.Contains(err.Error(), "yesterday") {
		t.Errorf("Runs: %v, want an internal error naming the bad time", err)
	}
}

// SC1, ST2: RunAt finds a skill's run by its due time, whatever zone the
// time is given in, and says ENOTFOUND for a due time never claimed.
func TestRunAtFindsTheDueTimesRunSC1(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	due := time.Date(2026, 12, 4, 6, 0, 0, 0, time.UTC)
	id, err := db.ClaimRun(ctx, store.Run{Skill: "morning-brief", DueAt: due, StartedAt: due, Outcome: "running", Chat: "telegram:1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ClaimRun(ctx, store.Run{Skill: "morning-brief", DueAt: due.Add(24 * time.Hour), Outcome: "running"}); err != nil {
		t.Fatal(err)
	}
	r, err := db.RunAt(ctx, "morning-brief", due.In(time.FixedZone("CET", 3600)))
	if err != nil || r.ID != id || r.Outcome != "running" {
		t.Errorf("RunAt: %+v, %v; want run %d", r, err, id)
	}
	if _, err := db.RunAt(ctx, "morning-brief", due.Add(time.Hour)); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("RunAt of a due time never claimed: %v, want ENOTFOUND", err)
	}
}
