package schedule

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlite"
)

type harness struct {
	s       *Scheduler
	clk     *clock.Fake
	db      *sqlite.DB
	mu      sync.Mutex
	runs    []string
	sent    []string
	failRun bool
	failDlv bool
	block   chan struct{}
}

func newHarness(t *testing.T, db *sqlite.DB, at time.Time) *harness {
	t.Helper()
	return newHarnessWith(t, db, at, func(db *sqlite.DB) store.Schedules { return db })
}

// newHarnessWith runs the scheduler on the store that wrap makes of db.
func newHarnessWith(t *testing.T, db *sqlite.DB, at time.Time, wrap func(*sqlite.DB) store.Schedules) *harness {
	t.Helper()
	if db == nil {
		var err error
		db, err = sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "j.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
	}
	h := &harness{clk: clock.NewFake(at), db: db}
	h.s = New(Options{Store: wrap(db), Clock: h.clk, MainChat: "telegram:1", Zone: time.UTC,
		Run: func(ctx context.Context, j Job, chat string) (string, error) {
			if h.block != nil {
				<-h.block
			}
			h.mu.Lock()
			defer h.mu.Unlock()
			h.runs = append(h.runs, j.Skill)
			if h.failRun {
				return "", errors.New("model down")
			}
			return "report of " + j.Skill, nil
		},
		Deliver: func(ctx context.Context, chat, text string) error {
			h.mu.Lock()
			defer h.mu.Unlock()
			if h.failDlv {
				return errors.New("telegram 502")
			}
			h.sent = append(h.sent, chat+": "+text)
			return nil
		}})
	return h
}

func (h *harness) counts() (int, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.runs), len(h.sent)
}

var brief = Job{Skill: "morning-brief", Spec: "0 7 * * *", Zone: "Europe/Berlin", Agent: "default"}

func TestTimeZonesAndDSTSC1(t *testing.T) {
	s, loc, err := Parse("0 7 * * *", "Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	// The night the clocks go forward: 07:00 stays 07:00 local.
	before := time.Date(2026, 3, 28, 7, 0, 0, 0, loc)
	next := s.Next(before)
	if next.In(loc).Hour() != 7 || next.UTC().Hour() != 5 || before.UTC().Hour() != 6 {
		t.Errorf("across DST: %v (UTC %v)", next.In(loc), next.UTC())
	}
	for _, bad := range [][2]string{{"0 7 * *", ""}, {"@sometimes", ""}, {"0 7 * * *", "Mars/Olympus"}} {
		if _, _, err := Parse(bad[0], bad[1]); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	if _, _, err := Parse("@every 2h", ""); err != nil {
		t.Error(err)
	}
}

// TestFiresAndDeliversSC1: at 07:00 Berlin the brief runs once and its
// report reaches the owner's chat; run and delivery are recorded.
func TestFiresAndDeliversSC1(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	h := newHarness(t, nil, time.Date(2026, 12, 2, 6, 59, 0, 0, berlin))
	if err := h.s.Start(context.Background(), []Job{brief}); err != nil {
		t.Fatal(err)
	}
	defer h.s.Stop()
	h.clk.Advance(30 * time.Second)
	h.s.Wait()
	if r, _ := h.counts(); r != 0 {
		t.Fatal("ran early")
	}
	h.clk.Advance(30 * time.Second)
	h.s.Wait()
	if r, d := h.counts(); r != 1 || d != 1 {
		t.Fatalf("runs %d, deliveries %d", r, d)
	}
	last, err := h.db.LastRun(context.Background(), "morning-brief")
	if err != nil || last.Outcome != "ok" || last.Delivery != "sent" || last.Chat != "telegram:1" {
		t.Errorf("recorded %+v %v", last, err)
	}
}

// TestCatchUpOnceAndNoDuplicatesSC1: after downtime over 07:00 one run
// catches up (not one per missed day); a restart never repeats it; beyond
// the grace window nothing catches up.
func TestCatchUpOnceAndNoDuplicatesSC1(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "j.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// It last ran three days ago; jarvisbot comes back at 07:30.
	db.ClaimRun(context.Background(), store.Run{Skill: "morning-brief", DueAt: time.Date(2026, 11, 29, 7, 0, 0, 0, berlin), Outcome: "ok"})
	h := newHarness(t, db, time.Date(2026, 12, 2, 7, 30, 0, 0, berlin))
	h.s.Start(context.Background(), []Job{brief})
	h.s.Wait()
	h.s.Stop()
	if r, _ := h.counts(); r != 1 {
		t.Fatalf("catch-up ran %d times", r)
	}
	// Restart at 07:40: the 07:00 run exists, nothing runs again.
	h2 := newHarness(t, db, time.Date(2026, 12, 2, 7, 40, 0, 0, berlin))
	h2.s.Start(context.Background(), []Job{brief})
	h2.s.Wait()
	h2.s.Stop()
	if r, _ := h2.counts(); r != 0 {
		t.Errorf("restart repeated the run")
	}
	// Beyond the grace window: no catch-up.
	h3 := newHarness(t, nil, time.Date(2026, 12, 2, 9, 30, 0, 0, berlin))
	h3.s.Start(context.Background(), []Job{brief})
	h3.s.Wait()
	h3.s.Stop()
	if r, _ := h3.counts(); r != 0 {
		t.Errorf("caught up outside the grace window")
	}
}

// TestSkipIfRunningSC1: a run still going when the next is due is
// skipped and recorded as skipped.
func TestSkipIfRunningSC1(t *testing.T) {
	h := newHarness(t, nil, time.Date(2026, 12, 2, 8, 0, 30, 0, time.UTC))
	h.block = make(chan struct{})
	h.s.Start(context.Background(), []Job{{Skill: "poll", Spec: "@every 1m"}})
	h.clk.Advance(time.Minute) // first run starts and blocks
	h.clk.Advance(time.Minute) // the next is due while it runs
	close(h.block)
	h.s.Wait()
	h.s.Stop()
	runs, _ := h.db.Runs(context.Background(), "poll", 10)
	outcomes := map[string]int{}
	for _, r := range runs {
		outcomes[r.Outcome]++
	}
	if outcomes["ok"] != 1 || outcomes["skipped"] != 1 {
		t.Errorf("outcomes %v", outcomes)
	}
}

// TestDeliveryFailureThenRetrySC1: a report that could not be sent is
// recorded as such and sent later; the run itself was fine.
func TestDeliveryFailureThenRetrySC1(t *testing.T) {
	h := newHarness(t, nil, time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC))
	h.failDlv = true
	h.s.Start(context.Background(), []Job{{Skill: "digest", Spec: "@hourly"}})
	defer h.s.Stop()
	r, err := h.s.RunNow(context.Background(), "digest")
	if err != nil || r.Outcome != "ok" || r.Delivery != "failed" || r.DeliveryError == "" {
		t.Fatalf("run %+v %v", r, err)
	}
	h.mu.Lock()
	h.failDlv = false
	h.mu.Unlock()
	h.s.RetryDeliveries(context.Background())
	last, _ := h.db.LastRun(context.Background(), "digest")
	if last.Delivery != "sent" || last.Attempts != 2 {
		t.Errorf("after retry: %+v", last)
	}
}

// lookCounter is the real store, counting the looks for undelivered reports.
type lookCounter struct {
	*sqlite.DB
	looks atomic.Int32
}

func (c *lookCounter) UndeliveredRuns(ctx context.Context) ([]store.Run, error) {
	c.looks.Add(1)
	return c.DB.UndeliveredRuns(ctx)
}

// TestRetryLooksOnlyAfterAFailedDelivery: an idle service does not query
// the store on every retry tick; a report that failed since is retried.
func TestRetryLooksOnlyAfterAFailedDelivery(t *testing.T) {
	var lc *lookCounter
	h := newHarnessWith(t, nil, time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC), func(db *sqlite.DB) store.Schedules {
		lc = &lookCounter{DB: db}
		return lc
	})
	ctx := context.Background()
	h.s.Start(ctx, []Job{{Skill: "digest", Spec: "@hourly"}})
	defer h.s.Stop()
	h.s.RetryDeliveries(ctx) // at start, the last run may have left some
	h.s.RetryDeliveries(ctx)
	if n := lc.looks.Load(); n != 1 {
		t.Fatalf("%d looks with nothing undelivered, want 1 (at start)", n)
	}
	h.failDlv = true
	if r, err := h.s.RunNow(ctx, "digest"); err != nil || r.Delivery != "failed" {
		t.Fatalf("run %+v %v, want a failed delivery", r, err)
	}
	h.mu.Lock()
	h.failDlv = false
	h.mu.Unlock()
	h.s.RetryDeliveries(ctx)
	h.s.RetryDeliveries(ctx)
	if n := lc.looks.Load(); n != 2 {
		t.Errorf("%d looks, want 2: at start and after the failed delivery", n)
	}
	if last, _ := h.db.LastRun(ctx, "digest"); last.Delivery != "sent" {
		t.Errorf("after the retry: %+v", last)
	}
}

// TestFailureAlertOncePausedSC1: three failures in a row give one alert;
// a paused skill does not run.
func TestFailureAlertOncePausedSC1(t *testing.T) {
	h := newHarness(t, nil, time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC))
	h.failRun = true
	h.s.Start(context.Background(), []Job{{Skill: "flaky", Spec: "@hourly"}})
	defer h.s.Stop()
	for range 5 {
		h.clk.Advance(time.Hour)
		h.s.Wait()
	}
	alerts := 0
	h.mu.Lock()
	for _, s := range h.sent {
		if containsAll(s, "failed 3 times") {
			alerts++
		}
	}
	h.mu.Unlock()
	if alerts != 1 {
		t.Errorf("%d alerts: %v", alerts, h.sent)
	}
	h.db.SetScheduleState(context.Background(), store.ScheduleState{Skill: "flaky", Paused: true})
	before, _ := h.counts()
	h.clk.Advance(time.Hour)
	h.s.Wait()
	if after, _ := h.counts(); after != before {
		t.Error("a paused skill ran")
	}
}

func containsAll(s, sub string) bool { return len(s) >= len(sub) && (stringIndex(s, sub) >= 0) }

func stringIndex(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
