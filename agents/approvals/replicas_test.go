package approvals

import (
	"context"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
	"github.com/jarvisbot/jarvisbot/store"
)

const watch = time.Second

// replicas are two engines on two handles of one store, as two serve
// processes on one database are; orphans counts what each took for an
// orphan.
type replicas struct {
	clk     *clock.Fake
	a, b    *Engine
	orphans [2]atomic.Int32
}

func twoReplicas(t *testing.T) *replicas {
	t.Helper()
	path := filepath.Join(t.TempDir(), "j.db")
	r := &replicas{clk: clock.NewFake(time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC))}
	for i, e := range []**Engine{&r.a, &r.b} {
		*e = New(Options{Store: open(t, path), Clock: r.clk, Approvers: []string{"telegram:1"}, Watch: watch,
			Carrier: []string{"replica-a", "replica-b"}[i], Orphan: func(store.Approval) { r.orphans[i].Add(1) }})
		t.Cleanup((*e).Close)
	}
	return r
}

// waitTimers waits until the fake clock holds n timers: a Wait started
// in a goroutine has armed its look at the store.
func (r *replicas) waitTimers(t *testing.T, n int) {
	t.Helper()
	testwait.For(t, 10*time.Second, "timers armed", func() (bool, any) { return r.clk.Pending() == n, r.clk.Pending() })
}

type waited struct {
	a   store.Approval
	err error
}

// askOnA asks on replica A and waits for the decision in a goroutine, whose
// answer comes on the channel once the wait has armed its look at the store.
func (r *replicas) askOnA(t *testing.T) (store.Approval, <-chan waited) {
	t.Helper()
	ctx := context.Background()
	a, err := r.a.Ask(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan waited, 1)
	go func() { d, err := r.a.Wait(ctx, a.ID); got <- waited{d, err} }()
	r.waitTimers(t, 2) // A's expiry and its look at the store
	return a, got
}

// heard waits for A's turn to hear the decision.
func heard(t *testing.T, got <-chan waited) waited {
	t.Helper()
	var w waited
	testwait.For(t, 10*time.Second, "A's turn to hear the decision", func() (bool, any) {
		select {
		case w = <-got:
			return true, nil
		default:
			return false, nil
		}
	})
	return w
}

// TestDecisionOnAnotherReplicaST2C2: the turn waits on replica A, the
// owner's press lands on replica B. A hears of it within Watch and carries
// it out; B, which no turn waits on, does not take it for an orphan.
func TestDecisionOnAnotherReplicaST2C2(t *testing.T) {
	r := twoReplicas(t)
	ctx := context.Background()
	a, got := r.askOnA(t)
	if _, err := r.b.Decide(ctx, a.ID, "telegram:1", true, false); err != nil {
		t.Fatal(err)
	}
	select {
	case w := <-got:
		t.Fatalf("A heard of B's decision without looking: %+v", w)
	default:
	}
	r.clk.Advance(watch)
	w := heard(t, got)
	if w.err != nil || w.a.State != store.ApprovalApproved {
		t.Fatalf("A's turn: %+v %v", w.a, w.err)
	}
	r.clk.Advance(OrphanGrace * watch)
	if n := r.orphans[1].Load() + r.orphans[0].Load(); n != 0 {
		t.Errorf("a decision whose turn waited was also taken for an orphan %d times", n)
	}
}

// TestOrphanOnlyWhenNoTurnWaitsST2: when the replica that asked is gone,
// the replica the press lands on carries the decision out after the grace,
// once.
func TestOrphanOnlyWhenNoTurnWaitsST2(t *testing.T) {
	r := twoReplicas(t)
	ctx := context.Background()
	a, err := r.a.Ask(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	r.a.Close() // replica A stopped; its turn waits no more
	if _, err := r.b.Decide(ctx, a.ID, "telegram:1", false, false); err != nil {
		t.Fatal(err)
	}
	r.clk.Advance(watch)
	if r.orphans[1].Load() != 0 {
		t.Fatal("taken for an orphan before the grace")
	}
	r.clk.Advance(OrphanGrace * watch)
	r.clk.Advance(OrphanGrace * watch)
	if n := r.orphans[1].Load(); n != 1 || r.orphans[0].Load() != 0 {
		t.Errorf("orphan taken up %d times on B, %d on A; want once on B", n, r.orphans[0].Load())
	}
}

// TestPressedOnTwoReplicasAtOnceST2C2: the owner's press reaches both
// replicas at the same moment (two devices, a retried delivery). One
// decision wins, and it is carried out exactly once, whichever replica
// took it.
func TestPressedOnTwoReplicasAtOnceST2C2(t *testing.T) {
	for round := range 8 {
		r := twoReplicas(t)
		ctx := context.Background()
		a, got := r.askOnA(t)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, e := range []*Engine{r.a, r.b} {
			wg.Go(func() { _, errs[i] = e.Decide(ctx, a.ID, "telegram:1", true, false) })
		}
		wg.Wait()
		loser := errs[0]
		if loser == nil {
			loser = errs[1]
		}
		if (errs[0] == nil) == (errs[1] == nil) || jarvisbot.ErrorCode(loser) != jarvisbot.ECONFLICT {
			t.Fatalf("round %d: two presses: %v, %v", round, errs[0], errs[1])
		}
		r.clk.Advance(watch)
		w := heard(t, got)
		r.clk.Advance(OrphanGrace * watch)
		carried := int(r.orphans[0].Load() + r.orphans[1].Load())
		if w.err == nil {
			carried++
		}
		if carried != 1 {
			t.Fatalf("round %d: the decision was carried out %d times (turn: %v)", round, carried, w.err)
		}
	}
}
