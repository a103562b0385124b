package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestBudgetStoreTakesOnceA5: the owner's limits replace each other by
// agent and period; a notice is marked once; an offer is decided once and
// its one more turn taken once; sums group by agent, provider and model.
func TestBudgetStoreTakesOnceA5(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	at := time.Date(2026, 12, 6, 11, 0, 0, 0, time.UTC)

	for _, l := range []store.BudgetLimit{{Period: store.PeriodDay, USD: 5}, {Period: store.PeriodDay, USD: 7}, {Agent: "research", Period: store.PeriodMonth, Tokens: 9000}} {
		if err := db.SetBudgetLimit(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.SetBudgetLimit(ctx, store.BudgetLimit{Period: "week", USD: 1}); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("a week's limit: %v, want EINVALID", err)
	}
	if err := db.SetBudgetLimit(ctx, store.BudgetLimit{Period: store.PeriodDay, USD: -1}); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("a negative limit: %v, want EINVALID", err)
	}
	limits, err := db.BudgetLimits(ctx)
	if err != nil || len(limits) != 2 || limits[0].USD != 7 || limits[1].Tokens != 9000 {
		t.Fatalf("limits %+v %v", limits, err)
	}
	if err := db.ClearBudgetLimit(ctx, "research", store.PeriodMonth); err != nil {
		t.Fatal(err)
	}
	if limits, _ = db.BudgetLimits(ctx); len(limits) != 1 {
		t.Errorf("after clearing: %+v", limits)
	}

	for i, want := range []bool{true, false} {
		if first, err := db.MarkBudgetNotice(ctx, "80|x", at); err != nil || first != want {
			t.Errorf("mark %d: %v %v, want %v", i, first, err, want)
		}
	}
	if err := db.UnmarkBudgetNotice(ctx, "80|x"); err != nil {
		t.Fatal(err)
	}
	if first, _ := db.MarkBudgetNotice(ctx, "80|x", at); !first {
		t.Error("an unmarked notice is not marked again")
	}

	day := time.Date(2026, 12, 5, 23, 0, 0, 0, time.UTC)
	if err := db.AddBudgetOffer(ctx, store.BudgetOffer{ID: "o1", Agent: "default", Period: store.PeriodDay, Start: day, Stopped: "default"}); err != nil {
		t.Fatal(err)
	}
	if taken, err := db.TakeBudgetTurn(ctx, "default"); err != nil || taken {
		t.Fatalf("a turn taken before any was allowed: %v %v", taken, err)
	}
	o, err := db.DecideBudgetOffer(ctx, "o1", store.OfferAllowed, 0, "telegram:42", at)
	if err != nil || o.State != store.OfferAllowed || o.DecidedBy != "telegram:42" || !o.DecidedAt.Equal(at) {
		t.Fatalf("decided %+v %v", o, err)
	}
	if _, err := db.DecideBudgetOffer(ctx, "o1", store.OfferRaised, 2, "telegram:42", at); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
		t.Errorf("a second decision: %v, want ECONFLICT", err)
	}
	if _, err := db.DecideBudgetOffer(ctx, "nope", store.OfferAllowed, 0, "telegram:42", at); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("an unknown offer: %v, want ENOTFOUND", err)
	}
	for i, want := range []bool{true, false} {
		if taken, err := db.TakeBudgetTurn(ctx, "default"); err != nil || taken != want {
			t.Errorf("take %d: %v %v, want %v", i, taken, err, want)
		}
	}
	// An open offer can be dropped, a decided one not.
	if err := db.AddBudgetOffer(ctx, store.BudgetOffer{ID: "o2", Period: store.PeriodDay, Start: day, Stopped: "default"}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"o1", "o2"} {
		if err := db.DropBudgetOffer(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	offers, err := db.BudgetOffers(ctx, day)
	if err != nil || len(offers) != 1 || offers[0].ID != "o1" || !offers[0].TurnTaken || !offers[0].Start.Equal(day) {
		t.Fatalf("offers %+v %v", offers, err)
	}
	if offers, _ = db.BudgetOffers(ctx, day.Add(time.Hour)); len(offers) != 0 {
		t.Errorf("offers of an earlier period since a later one: %+v", offers)
	}

	for _, c := range []store.ModelCall{
		{At: at, Agent: "default", Provider: "anthropic", Model: "m", InputTokens: 10, OutputTokens: 1, Outcome: "ok"},
		{At: at, Agent: "default", Provider: "anthropic", Model: "m", InputTokens: 20, CacheReadTokens: 5, Outcome: "ok"},
		{At: at, Agent: "research", Provider: "openai", Model: "g", InputTokens: 7, Outcome: "ok"},
		{At: at.Add(-48 * time.Hour), Agent: "default", Provider: "anthropic", Model: "m", InputTokens: 1000, Outcome: "ok"},
	} {
		if err := db.RecordModelCall(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	sums, err := db.ModelCallSums(ctx, day)
	if err != nil || len(sums) != 2 || sums[0].InputTokens != 30 || sums[0].OutputTokens != 1 || sums[0].CacheReadTokens != 5 || sums[1].Agent != "research" || sums[1].InputTokens != 7 {
		t.Fatalf("sums %+v %v", sums, err)
	}
}
