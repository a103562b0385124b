package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

type harness struct {
	s       *Scheduler
	clk     *clock.Fake
	db      *sqlstore.DB
	logs    *testwait.Buffer
	mu      sync.Mutex
	runs    []string
	sent    []string
	failRun bool
	runErr  error // returned by every run when set
	failDlv bool
	block   chan struct{}
	// onDeliver is called before each delivery.
	onDeliver func(chat, text string)
}

func openDB(t *testing.T) *sqlstore.DB {
	t.Helper()
	db, err := sqlstore.Open(context.Background(), filepath.Join(t.TempDir(), "j.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	return db
}

// failDeliveries makes every delivery fail, or succeed again, while the
// scheduler runs.
func (h *harness) failDeliveries(fail bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failDlv = fail
}

func newHarness(t *testing.T, db *sqlstore.DB, at time.Time) *harness {
	t.Helper()
	return newHarnessWith(t, db, at, func(db *sqlstore.DB) store.Schedules { return db })
}

// newHarnessWith runs the scheduler on the store that wrap makes of db.
func newHarnessWith(t *testing.T, db *sqlstore.DB, at time.Time, wrap func(*sqlstore.DB) store.Schedules) *harness {
	t.Helper()
	if db == nil {
		db = openDB(t)
	}
	h := &harness{clk: clock.NewFake(at), db: db, logs: &testwait.Buffer{}}
	h.s = New(Options{Store: wrap(db), Clock: h.clk, MainChat: "telegram:1", Zone: time.UTC,
		Logger: slog.New(slog.NewTextHandler(h.logs, nil)),
		Run: func(ctx context.Context, e Entry, chat string) (string, error) {
			if h.block != nil {
				<-h.block
			}
			h.mu.Lock()
			defer h.mu.Unlock()
			h.runs = append(h.runs, e.Skill)
			if h.runErr != nil {
				return "", h.runErr
			}
			if h.failRun {
				return "", errors.New("model down")
			}
			return "report of " + e.Skill, nil
		},
		Deliver: func(ctx context.Context, chat, text string) error {
			if h.onDeliver != nil {
				h.onDeliver(chat, text)
			}
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

// start starts the scheduler on entries.
func (h *harness) start(t *testing.T, entries ...Entry) {
	t.Helper()
	if err := h.s.Start(context.Background(), entries); err != nil {
		t.Fatal(err)
	}
}

func (h *harness) counts() (int, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.runs), len(h.sent)
}

var brief = Entry{Skill: "morning-brief", Spec: "0 7 * * *", Zone: "Europe/Berlin", Agent: "default"}

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
	if err := h.s.Start(context.Background(), []Entry{brief}); err != nil {
		t.Fatal(err)
	}
	defer h.s.Stop(context.Background())
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

// armedOn starts and stops a scheduler for entries at a time, so that they
// count as armed from then on, as after a service that ran that day.
func armedOn(t *testing.T, db *sqlstore.DB, at time.Time, entries ...Entry) {
	t.Helper()
	h := newHarness(t, db, at)
	if err := h.s.Start(context.Background(), entries); err != nil {
		t.Fatal(err)
	}
	h.s.Wait()
	h.s.Stop(context.Background())
}

// TestCatchUpOnceAndNoDuplicatesSC1: after downtime over 07:00 one run
// catches up (not one per missed day); a restart never repeats it; beyond
// the grace window nothing catches up.
func TestCatchUpOnceAndNoDuplicatesSC1(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	db := openDB(t)
	// Armed three days ago at 06:00; it ran at 07:00 that day, then
	// jarvisbot was down until 07:30 today.
	h0 := newHarness(t, db, time.Date(2026, 11, 29, 6, 0, 0, 0, berlin))
	h0.start(t, brief)
	h0.clk.Advance(time.Hour)
	h0.s.Wait()
	h0.s.Stop(context.Background())
	if r, _ := h0.counts(); r != 1 {
		t.Fatalf("the first day ran %d times", r)
	}
	h := newHarness(t, db, time.Date(2026, 12, 2, 7, 30, 0, 0, berlin))
	h.start(t, brief)
	h.s.Wait()
	h.s.Stop(context.Background())
	if r, _ := h.counts(); r != 1 {
		t.Fatalf("catch-up ran %d times", r)
	}
	// Restart at 07:40: the 07:00 run exists, nothing runs again.
	h2 := newHarness(t, db, time.Date(2026, 12, 2, 7, 40, 0, 0, berlin))
	h2.start(t, brief)
	h2.s.Wait()
	h2.s.Stop(context.Background())
	if r, _ := h2.counts(); r != 0 {
		t.Errorf("restart repeated the run")
	}
	// Beyond the grace window: no catch-up.
	db3 := openDB(t)
	armedOn(t, db3, time.Date(2026, 11, 29, 6, 0, 0, 0, berlin), brief)
	h3 := newHarness(t, db3, time.Date(2026, 12, 2, 9, 30, 0, 0, berlin))
	h3.start(t, brief)
	h3.s.Wait()
	h3.s.Stop(context.Background())
	if r, _ := h3.counts(); r != 0 {
		t.Errorf("caught up outside the grace window")
	}
}

// TestNoCatchUpBeforeFirstArmedSC1: a fresh install, or a skill added
// today, never catches up a time that passed before the scheduler knew
// it: the shipped morning brief started at 07:30 waits for tomorrow, an
// every-minute skill for its next minute.
func TestNoCatchUpBeforeFirstArmedSC1(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	for _, tc := range []struct {
		name  string
		entry Entry
		start time.Time
		first time.Duration // from the start to the first run
	}{
		{"morning brief started at 07:30", brief, time.Date(2026, 12, 2, 7, 30, 0, 0, berlin), 23*time.Hour + 30*time.Minute},
		{"every minute", Entry{Skill: "tick", Spec: "* * * * *"}, time.Date(2026, 12, 2, 8, 0, 30, 0, time.UTC), 30 * time.Second},
		// @every counts from the zero time, not from the start, so that
		// replicas started apart queue the same times (ST2).
		{"@every 1m", Entry{Skill: "poll", Spec: "@every 1m"}, time.Date(2026, 12, 2, 8, 0, 30, 0, time.UTC), 30 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil, tc.start)
			if err := h.s.Start(context.Background(), []Entry{tc.entry}); err != nil {
				t.Fatal(err)
			}
			defer h.s.Stop(context.Background())
			h.s.Wait()
			if r, _ := h.counts(); r != 0 {
				t.Fatalf("ran %d times at start, for a time before it was armed", r)
			}
			h.clk.Advance(tc.first - time.Second)
			h.s.Wait()
			if r, _ := h.counts(); r != 0 {
				t.Fatalf("ran %d times before its first time", r)
			}
			h.clk.Advance(time.Second)
			h.s.Wait()
			if r, _ := h.counts(); r != 1 {
				t.Fatalf("ran %d times at its first time, want 1", r)
			}
		})
	}
}

// TestChangedScheduleCountsAsNewSC1: a skill whose schedule (or time zone)
// changed, or that was switched off and on again, is armed anew: a time
// missed while jarvisbot was down is caught up only on the schedule that
// was armed then, and only when the skill stayed scheduled.
func TestChangedScheduleCountsAsNewSC1(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	moved := brief
	moved.Spec = "15 7 * * *"
	otherZone := brief
	otherZone.Zone = "Europe/London"
	for _, tc := range []struct {
		name      string
		yesterday [][]Entry // the entry lists of the starts after the first, yesterday
		today     Entry
		want      int
	}{
		{"unchanged", nil, brief, 1},
		{"new time", nil, moved, 0},
		{"new time zone", nil, otherZone, 0},
		{"switched off and on", [][]Entry{{}}, brief, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t)
			armedOn(t, db, time.Date(2026, 12, 1, 6, 0, 0, 0, berlin), brief)
			for i, entries := range tc.yesterday {
				armedOn(t, db, time.Date(2026, 12, 1, 9, i, 0, 0, berlin), entries...)
			}
			// Down over 07:00 and 07:15 (07:15 London is 08:15 Berlin, before 08:30).
			h := newHarness(t, db, time.Date(2026, 12, 2, 7, 30, 0, 0, berlin))
			if tc.today.Zone == "Europe/London" {
				h = newHarness(t, db, time.Date(2026, 12, 2, 8, 30, 0, 0, berlin))
			}
			h.start(t, tc.today)
			h.s.Wait()
			h.s.Stop(context.Background())
			if r, _ := h.counts(); r != tc.want {
				t.Errorf("caught up %d runs, want %d", r, tc.want)
			}
		})
	}
}

// TestSkipIfRunningSC1: a run still going when the next is due is
// skipped and recorded as skipped.
func TestSkipIfRunningSC1(t *testing.T) {
	h := newHarness(t, nil, time.Date(2026, 12, 2, 8, 0, 30, 0, time.UTC))
	h.block = make(chan struct{})
	h.start(t, Entry{Skill: "poll", Spec: "@every 1m"})
	h.clk.Advance(time.Minute) // first run starts and blocks
	h.clk.Advance(time.Minute) // the next is due while it runs
	close(h.block)
	h.s.Wait()
	h.s.Stop(context.Background())
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
	h.start(t, Entry{Skill: "digest", Spec: "@hourly"})
	defer h.s.Stop(context.Background())
	r, err := h.s.RunNow(context.Background(), "digest")
	if err != nil || r.Outcome != "ok" || r.Delivery != "failed" || r.DeliveryError == "" {
		t.Fatalf("run %+v %v", r, err)
	}
	h.failDeliveries(false)
	h.s.RetryDeliveries(context.Background())
	last, _ := h.db.LastRun(context.Background(), "digest")
	if last.Delivery != "sent" || last.Attempts != 2 {
		t.Errorf("after retry: %+v", last)
	}
}

// lookCounter is the real store, counting the looks for undelivered reports.
type lookCounter struct {
	*sqlstore.DB
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
	h := newHarnessWith(t, nil, time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC), func(db *sqlstore.DB) store.Schedules {
		lc = &lookCounter{DB: db}
		return lc
	})
	ctx := context.Background()
	h.start(t, Entry{Skill: "digest", Spec: "@hourly"})
	defer h.s.Stop(context.Background())
	h.s.RetryDeliveries(ctx) // at start, the last run may have left some
	h.s.RetryDeliveries(ctx)
	if n := lc.looks.Load(); n != 1 {
		t.Fatalf("%d looks with nothing undelivered, want 1 (at start)", n)
	}
	h.failDlv = true
	if r, err := h.s.RunNow(ctx, "digest"); err != nil || r.Delivery != "failed" {
		t.Fatalf("run %+v %v, want a failed delivery", r, err)
	}
	h.failDeliveries(false)
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
	h.start(t, Entry{Skill: "flaky", Spec: "@hourly"})
	defer h.s.Stop(context.Background())
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
	if _, err := h.db.UpdateScheduleState(context.Background(), "flaky", func(st *store.ScheduleState) { st.Paused = true }); err != nil {
		t.Fatal(err)
	}
	before, _ := h.counts()
	h.clk.Advance(time.Hour)
	h.s.Wait()
	if after, _ := h.counts(); after != before {
		t.Error("a paused skill ran")
	}
}

// noModel is what a runner returns when the agent has no model.
var noModel = fmt.Errorf("%w for agent default: set ANTHROPIC_API_KEY and JARVIS_MODEL", ErrNoModel)

// TestNoModelIsNotRunToldOnceSC1: with no model configured a scheduled
// run is recorded as not run, the owner is told once in the main chat what
// to set (not on every run, and no failure alert), no report is sent; once
// a run starts again, a later missing model is told once more.
func TestNoModelIsNotRunToldOnceSC1(t *testing.T) {
	h := newHarness(t, nil, time.Date(2026, 12, 2, 8, 0, 30, 0, time.UTC))
	h.runErr = noModel
	ctx := context.Background()
	h.start(t, Entry{Skill: "digest", Spec: "@hourly", Chat: "discord:9"})
	defer h.s.Stop(context.Background())
	hour := func() {
		h.clk.Advance(time.Hour)
		h.s.Wait()
	}
	for range 5 {
		hour()
	}
	runs, err := h.db.Runs(ctx, "digest", 10)
	if err != nil || len(runs) != 5 {
		t.Fatalf("%d runs recorded, want 5: %v", len(runs), err)
	}
	for _, r := range runs {
		if r.Outcome != "not-run" || !strings.Contains(r.Error, "no model is configured") || r.Delivery != "none" || r.Report != "" {
			t.Errorf("recorded %+v, want not-run because no model is configured, nothing to deliver", r)
		}
	}
	h.mu.Lock()
	sent := append([]string(nil), h.sent...)
	h.mu.Unlock()
	if len(sent) != 1 || !strings.HasPrefix(sent[0], "telegram:1: ") || !strings.Contains(sent[0], "ANTHROPIC_API_KEY") || !strings.Contains(sent[0], "digest") {
		t.Fatalf("the owner was told %q, want one message to the main chat saying what to set", sent)
	}
	if st, _ := h.db.ScheduleState(ctx, "digest"); st.Failures != 0 || st.Alerted {
		t.Errorf("state %+v: a missing model counted as a failure", st)
	}
	if u, _ := h.db.UndeliveredRuns(ctx); len(u) != 0 {
		t.Errorf("reports waiting to be sent: %+v", u)
	}
	// A model is set: the next run runs and reports; then it is gone again.
	h.mu.Lock()
	h.runErr = nil
	h.mu.Unlock()
	hour()
	h.mu.Lock()
	h.runErr = noModel
	h.mu.Unlock()
	hour()
	hour()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.sent) != 3 || !strings.HasPrefix(h.sent[1], "discord:9: report of digest") || !strings.Contains(h.sent[2], "ANTHROPIC_API_KEY") {
		t.Errorf("after a run with a model and two without, sent %q, want the report and one more notice", h.sent)
	}
}

// TestNoModelByHandIsNotToldSC1: `schedule run` without a model returns
// the run as not run to the terminal; the chat notice stays for the
// scheduled runs.
func TestNoModelByHandIsNotToldSC1(t *testing.T) {
	h := newHarness(t, nil, time.Date(2026, 12, 2, 8, 0, 30, 0, time.UTC))
	h.runErr = noModel
	ctx := context.Background()
	if err := h.s.Load([]Entry{{Skill: "digest", Spec: "@hourly"}}); err != nil {
		t.Fatal(err)
	}
	r, err := h.s.RunNow(ctx, "digest")
	if err != nil || r.Outcome != "not-run" || !strings.Contains(r.Error, "ANTHROPIC_API_KEY") {
		t.Fatalf("run %+v %v, want not-run saying what to set", r, err)
	}
	if _, sent := h.counts(); sent != 0 {
		t.Errorf("%d messages sent for a run by hand", sent)
	}
}

// TestUndeliveredNoticeIsSentAgainSC1: a no-model notice or a failure
// alert that could not be delivered is not taken as told: the next run
// sends it.
func TestUndeliveredNoticeIsSentAgainSC1(t *testing.T) {
	for _, tc := range []struct {
		name   string
		runErr error
		runs   int // runs before the one whose message is undelivered
		want   string
	}{
		{"no-model notice", noModel, 0, "did not run"},
		{"failure alert", errors.New("model down"), 2, "times in a row"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil, time.Date(2026, 12, 2, 8, 0, 30, 0, time.UTC))
			h.runErr = tc.runErr
			h.start(t, Entry{Skill: "digest", Spec: "@hourly"})
			defer h.s.Stop(context.Background())
			hour := func() {
				h.clk.Advance(time.Hour)
				h.s.Wait()
			}
			for range tc.runs {
				hour()
			}
			h.failDeliveries(true)
			hour()
			h.failDeliveries(false)
			hour()
			hour()
			h.mu.Lock()
			defer h.mu.Unlock()
			n := 0
			for _, m := range h.sent {
				if strings.Contains(m, tc.want) {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%d messages with %q, want 1 after the undelivered one: %q", n, tc.want, h.sent)
			}
			if !strings.Contains(h.logs.String(), "could not be delivered") {
				t.Errorf("the undelivered message was not logged:\n%s", h.logs.String())
			}
		})
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

// TestStopInterruptsRunAtDeadlineX4: when the service stops, a run still
// going at the shutdown deadline is stopped and recorded "interrupted":
// not a failure of the skill, no report, and Stop returns.
func TestStopInterruptsRunAtDeadlineX4(t *testing.T) {
	db := openDB(t)
	berlin, _ := time.LoadLocation("Europe/Berlin")
	clk := clock.NewFake(time.Date(2026, 12, 2, 6, 59, 0, 0, berlin))
	started := make(chan struct{})
	delivered := make(chan string, 1)
	s := New(Options{Store: db, Clock: clk, MainChat: "telegram:1", Zone: time.UTC,
		Run: func(ctx context.Context, e Entry, chat string) (string, error) {
			close(started)
			<-ctx.Done() // a model call that does not end by itself
			return "", ctx.Err()
		},
		Deliver: func(_ context.Context, _, text string) error { delivered <- text; return nil },
	})
	if err := s.Start(context.Background(), []Entry{brief}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute)
	<-started
	deadline, cancel := context.WithCancel(context.Background())
	cancel() // the shutdown deadline has passed
	s.Stop(deadline)
	ctx := context.Background()
	last, err := db.LastRun(ctx, "morning-brief")
	if err != nil || last.Outcome != "interrupted" || last.Delivery != "none" {
		t.Errorf("recorded %+v %v", last, err)
	}
	if st, err := db.ScheduleState(ctx, "morning-brief"); err != nil || st.Failures != 0 {
		t.Errorf("state %+v %v: an interrupted run is not a failure", st, err)
	}
	select {
	case text := <-delivered:
		t.Errorf("an interrupted run reported: %q", text)
	default:
	}
}

// TestReportRetryOneReplicaAtATimeST2: with several processes on one
// store, undelivered reports are sent again only by the replica holding
// the lease for it; while another holds it nothing is sent, and the
// report waits for the next tick.
func TestReportRetryOneReplicaAtATimeST2(t *testing.T) {
	h := newHarness(t, nil, time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC))
	h.s.opt.Leases = h.db
	h.failDlv = true
	h.start(t, Entry{Skill: "digest", Spec: "@hourly"})
	defer h.s.Stop(context.Background())
	ctx := context.Background()
	if r, err := h.s.RunNow(ctx, "digest"); err != nil || r.Delivery != "failed" {
		t.Fatalf("run %+v %v", r, err)
	}
	h.failDeliveries(false)
	other, err := sqlstore.Open(ctx, h.db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	held, ok, err := other.TryLead(ctx, leaseDeliveries)
	if err != nil || !ok {
		t.Fatalf("the other replica's lease: %v %v", ok, err)
	}
	h.s.RetryDeliveries(ctx)
	if last, _ := h.db.LastRun(ctx, "digest"); last.Delivery != "failed" || last.Attempts != 1 {
		t.Fatalf("retried while another replica held the lease: %+v", last)
	}
	held.Release()
	h.s.RetryDeliveries(ctx)
	h.s.RetryDeliveries(ctx)
	if last, _ := h.db.LastRun(ctx, "digest"); last.Delivery != "sent" || last.Attempts != 2 {
		t.Errorf("after the lease was free: %+v", last)
	}
}
