package scheduler

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// errBroken is what a failing store answers.
var errBroken = jarvisbot.Errorf(jarvisbot.EINTERNAL, "disk I/O error (test)")

// failingStore is the real store with chosen calls failing.
type failingStore struct {
	*sqlstore.DB
	mu   sync.Mutex
	fail map[string]func(store.Run) bool // method -> fails for this run (nil run for other calls)
}

func (f *failingStore) fails(method string, r store.Run) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	when, ok := f.fail[method]
	return ok && (when == nil || when(r))
}

func (f *failingStore) ClaimRun(ctx context.Context, r store.Run) (int64, error) {
	if f.fails("ClaimRun", r) {
		return 0, errBroken
	}
	return f.DB.ClaimRun(ctx, r)
}

func (f *failingStore) UpdateRun(ctx context.Context, r store.Run) error {
	if f.fails("UpdateRun", r) {
		return errBroken
	}
	return f.DB.UpdateRun(ctx, r)
}

func (f *failingStore) LastRun(ctx context.Context, skill string) (store.Run, error) {
	if f.fails("LastRun", store.Run{Skill: skill}) {
		return store.Run{}, errBroken
	}
	return f.DB.LastRun(ctx, skill)
}

func (f *failingStore) UndeliveredRuns(ctx context.Context) ([]store.Run, error) {
	if f.fails("UndeliveredRuns", store.Run{}) {
		return nil, errBroken
	}
	return f.DB.UndeliveredRuns(ctx)
}

func (f *failingStore) ScheduleState(ctx context.Context, skill string) (store.ScheduleState, error) {
	if f.fails("ScheduleState", store.Run{Skill: skill}) {
		return store.ScheduleState{}, errBroken
	}
	return f.DB.ScheduleState(ctx, skill)
}

// TestStoreFailuresAreReportedSC1: when the store fails on a path that
// changes state, the scheduler says so in its log, with the skill and the
// error, and does not act on what it could not read.
func TestStoreFailuresAreReportedSC1(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	armed := time.Date(2026, 12, 1, 6, 0, 0, 0, berlin)
	for _, tc := range []struct {
		name     string
		fail     map[string]func(store.Run) bool
		scenario func(t *testing.T, h *harness)
		runs     int // runs that happened
	}{
		{
			// A missed time whose last run cannot be read is not taken as
			// "never ran".
			name: "last run unreadable at catch-up",
			fail: map[string]func(store.Run) bool{"LastRun": nil},
			scenario: func(t *testing.T, h *harness) {
				h.start(t, brief)
				h.s.Wait()
			},
			runs: 0,
		},
		{
			// A skill whose pause switch cannot be read does not run.
			name: "state unreadable when due",
			fail: map[string]func(store.Run) bool{"ScheduleState": nil},
			scenario: func(t *testing.T, h *harness) {
				h.start(t, Entry{Skill: "digest", Spec: "@hourly"})
				h.clk.Advance(time.Hour)
				h.s.Wait()
			},
			runs: 0,
		},
		{
			name: "skipped run not recorded",
			fail: map[string]func(store.Run) bool{"ClaimRun": func(r store.Run) bool { return r.Outcome == "skipped" }},
			scenario: func(t *testing.T, h *harness) {
				h.block = make(chan struct{})
				h.start(t, Entry{Skill: "poll", Spec: "@every 1m"})
				h.clk.Advance(time.Minute) // the first run starts and blocks
				h.clk.Advance(time.Minute) // the next is due while it runs
				close(h.block)
				h.s.Wait()
			},
			runs: 1,
		},
		{
			name: "run outcome not recorded",
			fail: map[string]func(store.Run) bool{"UpdateRun": nil},
			scenario: func(t *testing.T, h *harness) {
				h.start(t, Entry{Skill: "digest", Spec: "@hourly"})
				h.s.Wait()
			},
			runs: 1, // the catch-up of 07:00
		},
		{
			name: "undelivered reports unreadable",
			fail: map[string]func(store.Run) bool{"UndeliveredRuns": nil},
			scenario: func(t *testing.T, h *harness) {
				h.start(t, Entry{Skill: "digest", Spec: "@hourly"})
				h.s.RetryDeliveries(context.Background())
			},
			runs: 1, // the catch-up of 07:00
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t)
			armedOn(t, db, armed, brief, Entry{Skill: "digest", Spec: "@hourly"}, Entry{Skill: "poll", Spec: "@every 1m"})
			fs := &failingStore{DB: db}
			h := newHarnessWith(t, db, time.Date(2026, 12, 2, 7, 30, 0, 0, berlin), func(db *sqlstore.DB) store.Schedules { return fs })
			fs.fail = tc.fail
			tc.scenario(t, h)
			h.s.Stop(context.Background())
			if r, _ := h.counts(); r != tc.runs {
				t.Errorf("%d runs, want %d", r, tc.runs)
			}
			logs := h.logs.String()
			if !strings.Contains(logs, "level=ERROR") || !strings.Contains(logs, errBroken.Error()) {
				t.Errorf("the store's failure was not logged as an error:\n%s", logs)
			}
		})
	}
}

// pausingStore is the real store where the owner pauses a skill (as
// `schedule pause` does) at the moment the scheduler records a run's
// outcome: after it read the state, or as it updates it.
type pausingStore struct {
	*sqlstore.DB
	ran *atomic.Bool
}

func (p *pausingStore) pause(ctx context.Context, skill string) {
	if !p.ran.Swap(false) {
		return
	}
	if _, err := p.DB.UpdateScheduleState(ctx, skill, func(st *store.ScheduleState) { st.Paused = true }); err != nil {
		panic(err)
	}
}

func (p *pausingStore) ScheduleState(ctx context.Context, skill string) (store.ScheduleState, error) {
	st, err := p.DB.ScheduleState(ctx, skill)
	p.pause(ctx, skill)
	return st, err
}

func (p *pausingStore) UpdateScheduleState(ctx context.Context, skill string, change func(*store.ScheduleState)) (store.ScheduleState, error) {
	p.pause(ctx, skill)
	return p.DB.UpdateScheduleState(ctx, skill, change)
}

// TestPauseWhileRecordingOutcomeIsKeptSC1: a pause that lands while a run
// records its outcome is not overwritten by it.
func TestPauseWhileRecordingOutcomeIsKeptSC1(t *testing.T) {
	var ran atomic.Bool
	h := newHarnessWith(t, nil, time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC), func(db *sqlstore.DB) store.Schedules {
		return &pausingStore{DB: db, ran: &ran}
	})
	h.onDeliver = func(string, string) {}
	h.failRun = true
	ctx := context.Background()
	h.start(t, Entry{Skill: "digest", Spec: "@hourly"})
	defer h.s.Stop(context.Background())
	ran.Store(true)
	if _, err := h.s.RunNow(ctx, "digest"); err != nil {
		t.Fatal(err)
	}
	st, err := h.db.ScheduleState(ctx, "digest")
	if err != nil || !st.Paused || st.Failures != 1 {
		t.Errorf("state %+v %v, want paused with one failure", st, err)
	}
}

// TestOutcomeRecordedBeforeDeliverySC1: a run's outcome is in the store
// before its report is sent, so a crash while sending leaves a finished
// run whose report is retried, not a run "running" forever.
func TestOutcomeRecordedBeforeDeliverySC1(t *testing.T) {
	h := newHarness(t, nil, time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC))
	ctx := context.Background()
	var seen store.Run
	h.onDeliver = func(string, string) { seen, _ = h.db.LastRun(ctx, "digest") }
	h.start(t, Entry{Skill: "digest", Spec: "@hourly"})
	defer h.s.Stop(context.Background())
	if _, err := h.s.RunNow(ctx, "digest"); err != nil {
		t.Fatal(err)
	}
	if seen.Outcome != "ok" || seen.Report != "report of digest" {
		t.Errorf("while the report was sent the store held %+v", seen)
	}
}
