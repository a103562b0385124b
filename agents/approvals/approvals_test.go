package approvals

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

func open(t *testing.T, path string) *sqlstore.DB {
	t.Helper()
	db, err := sqlstore.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func setup(t *testing.T) (*Engine, *clock.Fake, *sqlstore.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "j.db")
	db := open(t, path)
	clk := clock.NewFake(time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC))
	e := New(Options{Store: db, Clock: clk, TTL: 10 * time.Minute, Approvers: []string{"telegram:1"}})
	return e, clk, db, path
}

var req = Request{Tool: "mcp:github/merge_pull_request", Summary: "Merge pull request #42 into main", Args: []byte(`{"number":42}`), Agent: "default", Chat: "telegram:1"}

// TestDecideOnceC2: an approver's decision wakes the waiter; a second
// decision, from anyone, changes nothing; a stranger cannot decide.
func TestDecideOnceC2(t *testing.T) {
	e, _, _, _ := setup(t)
	ctx := context.Background()
	a, err := e.Ask(ctx, req)
	if err != nil || a.State != store.ApprovalPending || len(a.ID) < 26 {
		t.Fatalf("ask: %+v %v", a, err)
	}
	got := make(chan store.Approval, 1)
	go func() { d, _ := e.Wait(ctx, a.ID); got <- d }()
	if _, err := e.Decide(ctx, a.ID, "telegram:999", true, false); jarvisbot.ErrorCode(err) != jarvisbot.EFORBIDDEN {
		t.Errorf("stranger: %v", err)
	}
	// Two devices at once: exactly one wins.
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, approve := range []bool{true, false} {
		wg.Add(1)
		go func() { defer wg.Done(); _, errs[i] = e.Decide(ctx, a.ID, "telegram:1", approve, false) }()
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("two decisions: %v, %v", errs[0], errs[1])
	}
	for _, err := range errs {
		if err != nil && jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
			t.Errorf("loser: %v", err)
		}
	}
	d := <-got
	if d.State != store.ApprovalApproved && d.State != store.ApprovalDenied || d.DecidedBy != "telegram:1" {
		t.Errorf("waiter saw %+v", d)
	}
}

// TestTurnGoneBeforeItWaitedC2: a turn whose context ends as it starts
// to wait (the service stops right after asking) leaves its request to
// the next decision, which goes to Orphan to carry the turn on, as when
// the turn stops while waiting.
func TestTurnGoneBeforeItWaitedC2(t *testing.T) {
	e, _, _, _ := setup(t)
	orphans := make(chan store.Approval, 1)
	e.opt.Orphan = func(a store.Approval) { orphans <- a }
	a, err := e.Ask(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Wait(gone, a.ID); err == nil {
		t.Fatal("a turn whose context ended waited")
	}
	if _, err := e.Decide(context.Background(), a.ID, "telegram:1", true, false); err != nil {
		t.Fatal(err)
	}
	select {
	case o := <-orphans:
		if o.ID != a.ID || o.State != store.ApprovalApproved {
			t.Errorf("orphan %+v, want %s approved", o, a.ID)
		}
	default:
		t.Error("the decision reached no one: the turn that asked had stopped, and Orphan was not told")
	}
}

// TestExpiryC2: an unanswered request expires as denied, and a late tap
// is told so.
func TestExpiryC2(t *testing.T) {
	e, clk, db, _ := setup(t)
	ctx := context.Background()
	a, _ := e.Ask(ctx, req)
	got := make(chan store.Approval, 1)
	go func() { d, _ := e.Wait(ctx, a.ID); got <- d }()
	// Advance returns once every expiry that came due has run, so the
	// store says at once whether one fired early.
	clk.Advance(9 * time.Minute)
	if d, err := db.Approval(ctx, a.ID); err != nil || d.State != store.ApprovalPending {
		t.Fatalf("decided early: %+v %v", d, err)
	}
	select {
	case d := <-got:
		t.Fatalf("the waiter was woken early: %+v", d)
	default:
	}
	clk.Advance(time.Minute)
	if d := <-got; d.State != store.ApprovalExpired {
		t.Errorf("after the expiry: %+v", d)
	}
	if _, err := e.Decide(ctx, a.ID, "telegram:1", true, false); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
		t.Errorf("late tap: %v", err)
	}
}

// TestAlwaysC2: "always for this tool" approves later requests at once
// until the owner revokes it.
func TestAlwaysC2(t *testing.T) {
	e, _, _, _ := setup(t)
	ctx := context.Background()
	a, _ := e.Ask(ctx, req)
	if _, err := e.Decide(ctx, a.ID, "telegram:1", true, true); err != nil {
		t.Fatal(err)
	}
	b, _ := e.Ask(ctx, req)
	if b.State != store.ApprovalApproved || b.DecidedBy != ByAlways {
		t.Errorf("with a grant: %+v", b)
	}
	if err := e.Revoke(ctx, req.Tool); err != nil {
		t.Fatal(err)
	}
	if c, _ := e.Ask(ctx, req); c.State != store.ApprovalPending {
		t.Errorf("after revoke: %+v", c)
	}
	// Deny never grants.
	d, _ := e.Ask(ctx, Request{Tool: "cli:gh", Summary: "gh repo delete"})
	e.Decide(ctx, d.ID, "console", false, true)
	if f, _ := e.Ask(ctx, Request{Tool: "cli:gh", Summary: "again"}); f.State != store.ApprovalPending {
		t.Errorf("deny with always granted: %+v", f)
	}
}

// TestRestartC2: pending requests survive a restart; one that expired
// while jarvisbot was down is expired at start, the other still waits and
// can be decided.
func TestRestartC2(t *testing.T) {
	e, clk, db, path := setup(t)
	ctx := context.Background()
	old, _ := e.Ask(ctx, req)
	clk.Advance(8 * time.Minute)
	fresh, _ := e.Ask(ctx, req)
	db.Close()

	clk.Advance(5 * time.Minute) // down for five minutes
	db2 := open(t, path)
	e2 := New(Options{Store: db2, Clock: clk, TTL: 10 * time.Minute, Approvers: []string{"telegram:1"}})
	pending, err := e2.Resume(ctx)
	if err != nil || len(pending) != 1 || pending[0].ID != fresh.ID {
		t.Fatalf("resume: %+v %v", pending, err)
	}
	if a, _ := db2.Approval(ctx, old.ID); a.State != store.ApprovalExpired {
		t.Errorf("overdue request: %+v", a)
	}
	if a, err := e2.Decide(ctx, fresh.ID, "telegram:1", true, false); err != nil || a.State != store.ApprovalApproved {
		t.Errorf("decide after restart: %+v %v", a, err)
	}
}

// TestCloseDisarmsExpiryX4: once the engine is closed (the service
// stops), no expiry fires: nothing writes to a store that is closing and
// nothing is drawn; the request stays pending for the next start.
func TestCloseDisarmsExpiryX4(t *testing.T) {
	e, clk, db, _ := setup(t)
	notified := 0
	e.opt.Notify = func(store.Approval) { notified++ }
	ctx := context.Background()
	a, err := e.Ask(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
	clk.Advance(time.Hour)
	got, err := db.Approval(ctx, a.ID)
	if err != nil || got.State != store.ApprovalPending {
		t.Fatalf("after Close and the expiry time: %+v %v", got, err)
	}
	if notified != 1 { // the request itself, nothing after Close
		t.Errorf("notified %d times; want 1", notified)
	}
}

// TestDecisionCarriesItsTurnWhileDrawnC2: a request that outlived a
// restart carries its chat's turn without a gap while it is decided. The
// decision is drawn in the chat (Notify) after the store says decided and
// before the decision is handed to its turn (Orphan); a turn run again
// after the restart that looks in that moment must still find it, or it
// asks the owner a second time.
func TestDecisionCarriesItsTurnWhileDrawnC2(t *testing.T) {
	e, clk, db, path := setup(t)
	ctx := context.Background()
	asked, err := e.Ask(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	db2 := open(t, path)
	var e2 *Engine
	var whileDrawn, whileHanded []store.Approval
	e2 = New(Options{Store: db2, Clock: clk, TTL: 10 * time.Minute, Approvers: []string{"telegram:1"},
		Notify: func(a store.Approval) {
			if a.State == store.ApprovalApproved {
				whileDrawn, _ = e2.CarryingIn(ctx, req.Chat)
			}
		},
		Orphan: func(a store.Approval) { whileHanded, _ = e2.CarryingIn(ctx, req.Chat) }})
	if _, err := e2.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	if before, err := e2.CarryingIn(ctx, req.Chat); err != nil || len(before) != 1 || before[0].ID != asked.ID {
		t.Fatalf("before the decision: %+v %v; want the pending request", before, err)
	}
	if _, err := e2.Decide(ctx, asked.ID, "telegram:1", true, false); err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string][]store.Approval{"while drawn": whileDrawn, "while handed on": whileHanded} {
		if len(got) != 1 || got[0].ID != asked.ID {
			t.Errorf("%s: carrying %+v; want only request %s", name, got, asked.ID)
		}
	}
	e2.TakeUp(asked.ID)
	if after, err := e2.CarryingIn(ctx, req.Chat); err != nil || len(after) != 0 {
		t.Errorf("after its turn took it up: %+v %v; want none", after, err)
	}
}
