package approvals

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/testwait"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// storeDown is the real store refusing decisions while down is set, as a
// locked or full database would.
type storeDown struct {
	*sqlstore.DB
	down atomic.Bool
}

func (s *storeDown) DecideApproval(ctx context.Context, id string, state store.ApprovalState, by string, always bool, at time.Time) (store.Approval, error) {
	if s.down.Load() {
		return store.Approval{}, errors.New("database is locked")
	}
	return s.DB.DecideApproval(ctx, id, state, by, always, at)
}

// TestExpiryTheStoreRefusedIsRetriedC2X4: an expiry the store refuses is
// logged with the request and tried again after ExpiryRetry, so the turn
// waiting for it (and its chat) is released once the store is back,
// instead of waiting until jarvisbot stops.
func TestExpiryTheStoreRefusedIsRetriedC2X4(t *testing.T) {
	_, clk, db, _ := setup(t)
	st := &storeDown{DB: db}
	var logs testwait.Buffer
	e := New(Options{Store: st, Clock: clk, TTL: 10 * time.Minute, Approvers: []string{"telegram:1"}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	defer e.Close()
	ctx := context.Background()
	a, err := e.Ask(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	st.down.Store(true)
	clk.Advance(10 * time.Minute) // the expiry fires and is refused
	if got, err := db.Approval(ctx, a.ID); err != nil || got.State != store.ApprovalPending {
		t.Fatalf("after a refused expiry: %+v %v; want it still pending", got, err)
	}
	for _, want := range []string{"level=ERROR", "could not be expired", "approval=" + a.ID, "database is locked"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log %q lacks %q", logs.String(), want)
		}
	}

	got := make(chan store.Approval, 1)
	go func() { d, _ := e.Wait(ctx, a.ID); got <- d }()
	st.down.Store(false)
	// Wait registers before it reads the store: once the read says
	// pending, the retry below wakes it.
	testwait.For(t, 10*time.Second, "Wait to register", func() (bool, any) {
		e.mu.Lock()
		n := len(e.waiters[a.ID])
		e.mu.Unlock()
		return n == 1, fmt.Sprintf("%d waiters", n)
	})
	clk.Advance(ExpiryRetry)
	select {
	case d := <-got:
		if d.State != store.ApprovalExpired {
			t.Errorf("the waiting turn got %+v, want expired", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting turn was not released by the retried expiry")
	}
}
