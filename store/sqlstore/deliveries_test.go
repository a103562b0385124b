package sqlstore

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/store"
)

// ST2: a delivery is taken once across the handles of several processes
// on one file, whether it comes as a message for the inbox or as a
// command taken without one; the inbox row goes with the message's turn,
// the record of the delivery stays until it is forgotten.
func TestDeliveryTakenOnceST2(t *testing.T) {
	a, b := twoProcesses(t)
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	a.now, b.now = clock, clock
	ctx := context.Background()

	var stored atomic.Int32
	atOnce(8, a, b, func(_ int, db *DB) {
		_, err := db.Receive(ctx, store.Incoming{Chat: "telegram:42", User: "telegram:42", Text: "hello", Delivery: "500"})
		switch {
		case err == nil:
			stored.Add(1)
		case !errors.Is(err, store.ErrDelivered):
			t.Error(err)
		}
	})
	waiting, err := a.Waiting(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Load() != 1 || len(waiting) != 1 {
		t.Fatalf("8 copies of one delivery: %d stored, %d waiting; want 1", stored.Load(), len(waiting))
	}
	// Answered, the message leaves the inbox; its delivery is still known.
	if err := a.Answered(ctx, waiting[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Receive(ctx, store.Incoming{Chat: "telegram:42", User: "telegram:42", Text: "hello", Delivery: "500"}); !errors.Is(err, store.ErrDelivered) {
		t.Errorf("redelivered after the answer: %v, want ErrDelivered", err)
	}
	// The same id on another platform is another delivery; no id is none.
	if _, err := b.Receive(ctx, store.Incoming{Chat: "discord:42", User: "discord:42", Text: "hello", Delivery: "500"}); err != nil {
		t.Errorf("another platform's delivery 500: %v", err)
	}
	for range 2 {
		if _, err := b.Receive(ctx, store.Incoming{Chat: "console", User: "console", Text: "typed"}); err != nil {
			t.Errorf("a message without a delivery id: %v", err)
		}
	}
	for _, tt := range []struct {
		id   string
		want bool
	}{{"500", false}, {"501", true}, {"501", false}} {
		if taken, err := a.TakeDelivery(ctx, "telegram", tt.id); err != nil || taken != tt.want {
			t.Errorf("TakeDelivery(telegram, %s) = %v, %v; want %v", tt.id, taken, err, tt.want)
		}
	}

	now = now.Add(47 * time.Hour)
	if err := a.ForgetDeliveries(ctx, 48*time.Hour); err != nil {
		t.Fatal(err)
	}
	if taken, _ := a.TakeDelivery(ctx, "telegram", "500"); taken {
		t.Error("a delivery was forgotten before its time")
	}
	now = now.Add(2 * time.Hour)
	if err := b.ForgetDeliveries(ctx, 48*time.Hour); err != nil {
		t.Fatal(err)
	}
	if taken, _ := a.TakeDelivery(ctx, "telegram", "500"); !taken {
		t.Error("a delivery older than the window was not forgotten")
	}
}
