package backend_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestStatusSaysWhatModelCallsCostA5: status carries today's and this
// month's calls, tokens, cost and the gate's saving, the same figures as
// /usage and `jarvisbot usage`.
func TestStatusSaysWhatModelCallsCostA5(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	in := &app.Installation{Env: &app.Env{Clock: clock.NewFake(now)}, Config: config.Config{Timezone: "UTC"}, DB: f.db}
	f.svc.Usage = in.UsageSummary
	for _, c := range []store.ModelCall{
		{At: now.AddDate(0, 0, -3), Agent: "inbox", Provider: "anthropic", Model: "claude-sonnet-4-5", InputTokens: 1_000_000, Outcome: "ok"},
		{At: now.Add(-time.Hour), Agent: "default", Provider: "openai", Model: "gpt-4.1", InputTokens: 500_000, OutputTokens: 100_000, Outcome: "ok", ToolTokens: 100, CatalogTokens: 400},
		{At: now.Add(-time.Minute), Agent: "default", Provider: "openai", Model: "gpt-4.1", Outcome: "error: overloaded"},
		{At: now.AddDate(0, -1, 0), Agent: "default", Provider: "openai", Model: "gpt-4.1", InputTokens: 9_000_000, Outcome: "ok"}, // last month
	} {
		if err := f.db.RecordModelCall(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	st, err := f.svc.Status(ctx)
	if err != nil || st.Usage == nil {
		t.Fatalf("status %+v, %v", st, err)
	}
	u := st.Usage
	if u.Today.Calls != 2 || u.Today.FailedCalls != 1 || u.Today.InputTokens != 500_000 || math.Abs(u.Today.CostUSD-1.8) > 1e-9 || u.Today.GateSaved != 0.75 {
		t.Errorf("today: %+v, want 2 calls (1 failed), 500k input, $1.80, 75%% saved", u.Today)
	}
	if u.Month.Calls != 3 || math.Abs(u.Month.CostUSD-4.8) > 1e-9 {
		t.Errorf("month: %+v, want 3 calls and $4.80", u.Month)
	}
	if len(u.TopAgents) != 2 || u.TopAgents[0].Agent != "inbox" || u.TopAgents[1].Agent != "default" || u.TopAgents[1].Calls != 2 {
		t.Errorf("top agents: %+v", u.TopAgents)
	}
}
