package sqlstore

import (
	"context"
	"sync"
	"testing"
	"time"
)

// twoProcesses opens two handles on one fresh target, each standing in for
// a process of its own.
func twoProcesses(t *testing.T) (a, b *DB) {
	t.Helper()
	path := testTarget(t)
	return openTest(t, path), openTest(t, path)
}

// atOnce calls f n times at once, alternating between the handles a and b,
// and returns when every call has.
func atOnce(n int, a, b *DB, f func(i int, db *DB)) {
	var wg sync.WaitGroup
	for i := range n {
		db := a
		if i%2 == 1 {
			db = b
		}
		wg.Go(func() { f(i, db) })
	}
	wg.Wait()
}

// ST2: of several processes asking for a shared value at once, one value
// wins and every caller gets it; later callers do not make a new one.
func TestSharedValueOneWinsST2(t *testing.T) {
	a, b := twoProcesses(t)
	ctx := context.Background()
	got := make([]string, 8)
	atOnce(len(got), a, b, func(i int, db *DB) {
		v, err := db.SharedValue(ctx, "webhook-salt", func() (string, error) { return string(rune('a' + i)), nil })
		if err != nil {
			t.Error(err)
		}
		got[i] = v
	})
	for _, v := range got {
		if v != got[0] || v == "" {
			t.Fatalf("callers got different values: %q", got)
		}
	}
	v, err := a.SharedValue(ctx, "webhook-salt", func() (string, error) { t.Error("made a second value"); return "x", nil })
	if err != nil || v != got[0] {
		t.Errorf("later read: %q, %v", v, err)
	}
}

// ST2: a role is held by one holder at a time across handles on one file;
// released, the next holder gets it, and a waiting Lead is granted then.
func TestLeaseOneHolderST2(t *testing.T) {
	a, b := twoProcesses(t)
	ctx := context.Background()
	la, ok, err := a.TryLead(ctx, "telegram-poll")
	if err != nil || !ok {
		t.Fatalf("first TryLead: %v %v", ok, err)
	}
	if _, ok, err := b.TryLead(ctx, "telegram-poll"); err != nil || ok {
		t.Fatalf("second holder granted while the first holds: %v %v", ok, err)
	}
	if lo, ok, err := b.TryLead(ctx, "discord-shard:0"); err != nil || !ok {
		t.Fatalf("another role: %v %v", ok, err)
	} else {
		lo.Release()
	}
	granted := make(chan struct{})
	go func() {
		l, err := b.Lead(ctx, "telegram-poll")
		if err != nil {
			t.Error(err)
			close(granted)
			return
		}
		close(granted)
		l.Release()
	}()
	select {
	case <-granted:
		t.Fatal("Lead granted while held")
	default:
	}
	la.Release()
	la.Release() // twice is harmless
	<-granted
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := a.Lead(cctx, "../x"); err == nil {
		t.Error("a role naming a path was accepted")
	}
}

// ST2: a released lease is not lost (Discord's shards tell the two apart),
// and the handle that released a role can take it again.
func TestLeaseReleasedIsNotLostST2(t *testing.T) {
	db := openTest(t, testTarget(t))
	ctx := context.Background()
	l, ok, err := db.TryLead(ctx, "discord-shard:0")
	if err != nil || !ok {
		t.Fatalf("TryLead: %v %v", ok, err)
	}
	if _, ok, err := db.TryLead(ctx, "discord-shard:0"); err != nil || ok {
		t.Fatalf("granted twice to one handle: %v %v", ok, err)
	}
	l.Release()
	select {
	case <-l.Lost():
		t.Fatal("Lost closed by Release")
	case <-time.After(100 * time.Millisecond):
	}
	again, ok, err := db.TryLead(ctx, "discord-shard:0")
	if err != nil || !ok {
		t.Fatalf("TryLead after Release: %v %v", ok, err)
	}
	again.Release()
}
