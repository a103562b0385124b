package scheduler

import (
	"context"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/store"
)

// queued records what a scheduler hands to the replicas' shared queue.
type queued struct {
	mu         sync.Mutex
	runs       []time.Time
	deliveries []int64
}

func (q *queued) AddRun(_ context.Context, skill string, due time.Time) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.runs = append(q.runs, due)
	return nil
}

func (q *queued) AddDelivery(_ context.Context, run int64) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.deliveries = append(q.deliveries, run)
	return nil
}

// SC1, ST2: with replicas, a due run is queued, not run where its timer
// fired; whichever replica takes it from the queue runs it, and a second
// take of the same due time (another replica's, a rescued one) runs
// nothing.
// A report that could not be sent is queued for another try, and sent
// once when the chat answers again.
func TestDueRunsGoThroughTheSharedQueueST2(t *testing.T) {
	db := openDB(t)
	at := time.Date(2026, 12, 4, 5, 59, 0, 0, time.UTC) // 06:59 in Berlin
	a, b := newHarness(t, db, at), newHarness(t, db, at)
	q := &queued{}
	a.s.opt.Queue, b.s.opt.Queue = q, q
	a.start(t, brief)
	b.start(t, brief)
	a.clk.Advance(time.Minute)
	b.clk.Advance(time.Minute)
	q.mu.Lock()
	due := append([]time.Time(nil), q.runs...)
	q.mu.Unlock()
	if len(due) != 2 || !due[0].Equal(due[1]) || due[0].UTC().Hour() != 6 {
		t.Fatalf("queued %v, want 07:00 Berlin from both replicas", due)
	}
	if runs, _ := a.counts(); runs != 0 {
		t.Fatalf("a timer ran the skill itself (%d runs)", runs)
	}

	b.failDlv = true
	if err := b.s.RunDue(context.Background(), brief.Skill, due[0]); err != nil {
		t.Fatal(err)
	}
	if err := a.s.RunDue(context.Background(), brief.Skill, due[1]); err != nil {
		t.Fatal(err)
	}
	if ra, _ := a.counts(); ra != 0 {
		t.Errorf("the second take of one due time ran the skill again")
	}
	if rb, sb := b.counts(); rb != 1 || sb != 0 {
		t.Fatalf("b ran %d and sent %d, want 1 run and its report kept", rb, sb)
	}
	q.mu.Lock()
	kept := append([]int64(nil), q.deliveries...)
	q.mu.Unlock()
	if len(kept) != 1 {
		t.Fatalf("deliveries queued: %v, want the failed report's run", kept)
	}

	// The retry round queues it again (the queue keeps one per run), and
	// the queued try sends it once.
	a.s.RetryDeliveries(context.Background())
	q.mu.Lock()
	if len(q.deliveries) != 2 || q.deliveries[1] != kept[0] {
		t.Errorf("the retry round queued %v, want run %d again", q.deliveries, kept[0])
	}
	q.mu.Unlock()
	if err := a.s.DeliverRun(context.Background(), kept[0]); err != nil {
		t.Fatal(err)
	}
	if err := b.s.DeliverRun(context.Background(), kept[0]); err != nil {
		t.Fatal(err)
	}
	if _, sa := a.counts(); sa != 1 {
		t.Errorf("the kept report was sent %d times, want once", sa)
	}
	if _, sb := b.counts(); sb != 0 {
		t.Errorf("the report was sent again after it was delivered")
	}
}

// ST2: "@every D" falls on the same times in every process, whenever
// each started: two replicas queue one due time, not two near ones.
func TestEveryFallsOnSharedTimesST2(t *testing.T) {
	db := openDB(t)
	start := time.Date(2026, 12, 4, 8, 0, 7, 0, time.UTC)
	a, b := newHarness(t, db, start), newHarness(t, db, start.Add(23*time.Second))
	q := &queued{}
	a.s.opt.Queue, b.s.opt.Queue = q, q
	poll := Entry{Skill: "poll", Spec: "@every 2m"}
	a.start(t, poll)
	b.start(t, poll)
	a.clk.Advance(2 * time.Minute)
	b.clk.Advance(2 * time.Minute)
	q.mu.Lock()
	defer q.mu.Unlock()
	want := time.Date(2026, 12, 4, 8, 2, 0, 0, time.UTC)
	if len(q.runs) != 2 || !q.runs[0].Equal(want) || !q.runs[1].Equal(want) {
		t.Errorf("queued %v, want 08:02 from both", q.runs)
	}
}

// ST2: a run whose replica died while it ran is recorded interrupted
// when the shared queue tries its due time again, and is not run twice; a
// finished run of another due time is left as it was.
func TestAbandonedRunRecordedInterruptedST2(t *testing.T) {
	db := openDB(t)
	at := time.Date(2026, 12, 4, 5, 0, 0, 0, time.UTC)
	h := newHarness(t, db, at)
	ctx := context.Background()
	dead := at.Add(-time.Hour)
	if _, err := db.ClaimRun(ctx, store.Run{Skill: brief.Skill, DueAt: dead, StartedAt: dead, Outcome: "running", Chat: "telegram:1"}); err != nil {
		t.Fatal(err)
	}
	done := at.Add(-2 * time.Hour)
	id, err := db.ClaimRun(ctx, store.Run{Skill: brief.Skill, DueAt: done, StartedAt: done, Outcome: "running", Chat: "telegram:1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.UpdateRun(ctx, store.Run{ID: id, Skill: brief.Skill, StartedAt: done, FinishedAt: done.Add(time.Minute), Outcome: "ok", Chat: "telegram:1", Delivery: "sent"}); err != nil {
		t.Fatal(err)
	}
	h.start(t, brief)
	if err := h.s.Abandoned(ctx, brief.Skill, dead); err != nil {
		t.Fatal(err)
	}
	if err := h.s.RunDue(ctx, brief.Skill, dead); err != nil {
		t.Fatal(err)
	}
	runs, err := db.Runs(ctx, brief.Skill, 10)
	if err != nil {
		t.Fatal(err)
	}
	got := map[time.Time]string{}
	for _, r := range runs {
		got[r.DueAt.UTC()] = r.Outcome + ": " + r.Error
	}
	want := map[time.Time]string{
		dead.UTC(): "interrupted: the replica running it stopped before its end",
		done.UTC(): "ok: ",
	}
	if !maps.Equal(got, want) {
		t.Errorf("runs %v, want %v", got, want)
	}
	if n, _ := h.counts(); n != 0 {
		t.Errorf("the cut-off due time ran again (%d runs)", n)
	}
}
