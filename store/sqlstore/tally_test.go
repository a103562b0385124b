package sqlstore

import (
	"context"
	"sync"
	"testing"

	"github.com/jarvisbot/jarvisbot/store"
)

// TestTalliesAddUpW2: each AddTally adds to its day's count of (agent,
// kind, key); TalliesSince gives the days from one on, in order; two
// handles on one store (two replicas) counting the same row at once lose
// no count.
func TestTalliesAddUpW2(t *testing.T) {
	ctx := context.Background()
	target := testTarget(t)
	db := openTest(t, target)
	adds := []store.Tally{
		{Day: "2026-12-04", Kind: store.TallyTurn, Key: "ok", Count: 1},
		{Day: "2026-12-05", Kind: store.TallyTurn, Key: "ok", Count: 1},
		{Day: "2026-12-05", Kind: store.TallyTurn, Key: "ok", Count: 2},
		{Day: "2026-12-05", Kind: store.TallyTurn, Key: "error", Count: 1},
		{Day: "2026-12-05", Agent: "inbox", Kind: store.TallyToolCall, Key: "ask", Count: 1},
		{Day: "2026-12-06", Kind: store.TallyToolCall, Key: store.TallyNoTier, Count: 1},
	}
	for _, a := range adds {
		if err := db.AddTally(ctx, a.Day, a.Agent, a.Kind, a.Key, a.Count); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.TalliesSince(ctx, "2026-12-05")
	if err != nil {
		t.Fatal(err)
	}
	want := []store.Tally{
		{Day: "2026-12-05", Kind: store.TallyTurn, Key: "error", Count: 1},
		{Day: "2026-12-05", Kind: store.TallyTurn, Key: "ok", Count: 3},
		{Day: "2026-12-05", Agent: "inbox", Kind: store.TallyToolCall, Key: "ask", Count: 1},
		{Day: "2026-12-06", Kind: store.TallyToolCall, Key: store.TallyNoTier, Count: 1},
	}
	if len(got) != len(want) {
		t.Fatalf("TalliesSince = %+v\nwant %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, got[i], want[i])
		}
	}

	other := openTest(t, target)
	const each = 20
	var wg sync.WaitGroup
	for _, h := range []*DB{db, other} {
		wg.Go(func() {
			for range each {
				if err := h.AddTally(ctx, "2026-12-07", "", store.TallyTurn, "ok", 1); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	got, err = other.TalliesSince(ctx, "2026-12-07")
	if err != nil || len(got) != 1 || got[0].Count != 2*each {
		t.Errorf("after %d adds from each of two handles: %+v, %v", each, got, err)
	}
}
