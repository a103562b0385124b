package sqlstore

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/store"
)

// ST2: a decided request is claimed by one process only, however many
// ask at once over however many handles; a pending one by none.
func TestCarryApprovalOnceST2(t *testing.T) {
	a, b := twoProcesses(t)
	ctx := context.Background()
	now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	req := store.Approval{ID: "r1", Tool: "cli:echo", Summary: "Run echo", Agent: "default", Chat: "telegram:1", CreatedAt: now, ExpiresAt: now.Add(time.Minute)}
	if err := a.CreateApproval(ctx, req); err != nil {
		t.Fatal(err)
	}
	if ok, err := a.CarryApproval(ctx, "r1", "replica-a"); err != nil || ok {
		t.Fatalf("a pending request was claimed: %v %v", ok, err)
	}
	if _, err := b.DecideApproval(ctx, "r1", store.ApprovalApproved, "telegram:1", false, now); err != nil {
		t.Fatal(err)
	}
	var won atomic.Int32
	atOnce(8, a, b, func(_ int, db *DB) {
		ok, err := db.CarryApproval(ctx, "r1", "replica")
		if err != nil {
			t.Error(err)
		}
		if ok {
			won.Add(1)
		}
	})
	if won.Load() != 1 {
		t.Errorf("%d claims won, want 1", won.Load())
	}
	if _, err := a.CarryApproval(ctx, "r1", ""); err == nil {
		t.Error("a claim naming nobody was taken")
	}
}
