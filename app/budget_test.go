package app

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/budget"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/scheduler"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestBudgetsUseCaseA5: the installation's and every agent's limits are
// listed, the config's with the owner's over them and what was spent; the
// owner's limit wins, "none" lifts one, an empty one gives the config's
// back; a bad limit, period or agent name is refused saying why.
func TestBudgetsUseCaseA5(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	in.Config.Prices = map[string]config.Price{"test-model": {Input: 1}}
	in.Config.Budgets = config.Budgets{Monthly: "$30", Agents: map[string]config.Budget{"research": {Daily: "2M tokens"}}}
	if err := in.DB.RecordModelCall(ctx, store.ModelCall{At: in.Env.Now(), Agent: "research", Provider: "anthropic", Model: "test-model", InputTokens: 500_000, Outcome: "ok"}); err != nil {
		t.Fatal(err)
	}
	find := func(rows []BudgetRow, agent, period string) BudgetRow {
		t.Helper()
		for _, r := range rows {
			if r.Agent == agent && r.Period == period {
				return r
			}
		}
		t.Fatalf("no row for %q %s in %+v", agent, period, rows)
		return BudgetRow{}
	}
	rows, err := in.Budgets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 6 { // the installation, default and research; a day and a month each
		t.Errorf("%d rows, want 6: %+v", len(rows), rows)
	}
	if r := find(rows, "", store.PeriodMonth); r.Limit.USD != 30 || r.Spent.USD != 0.5 || r.Owner != nil {
		t.Errorf("the installation's month: %+v", r)
	}
	if r := find(rows, "research", store.PeriodDay); r.Limit.Tokens != 2_000_000 || r.Spent.Tokens != 500_000 || r.Resets.IsZero() {
		t.Errorf("research's day: %+v", r)
	}
	if r := find(rows, "default", store.PeriodDay); !r.Limit.IsZero() {
		t.Errorf("default's day: %+v, want no limit", r)
	}

	for _, tc := range []struct {
		agent, period, limit string
		note                 string
		code                 jarvisbot.Code
	}{
		{agent: "research", period: store.PeriodDay, limit: "$2", note: "The daily budget of agent research is now $2.00."},
		{period: store.PeriodMonth, limit: "none", note: "The monthly budget of the whole installation is lifted: no limit, whatever the config says."},
		{agent: "research", period: store.PeriodDay, limit: "", note: "The daily budget of agent research is the config's again: 2,000,000 tokens."},
		{agent: "research", period: store.PeriodDay, limit: "7", code: jarvisbot.EINVALID},
		{agent: "research", period: "week", limit: "$7", code: jarvisbot.EINVALID},
		{agent: "no way", period: store.PeriodDay, limit: "$7", code: jarvisbot.EINVALID},
	} {
		note, err := in.SetBudget(ctx, tc.agent, tc.period, tc.limit)
		if jarvisbot.ErrorCode(err) != tc.code || note != tc.note {
			t.Errorf("SetBudget(%q, %s, %q) = %q, %v; want %q (code %q)", tc.agent, tc.period, tc.limit, note, err, tc.note, tc.code)
		}
	}
	rows, err = in.Budgets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r := find(rows, "", store.PeriodMonth); !r.Limit.IsZero() || r.Owner == nil || !r.Owner.IsZero() || r.Config.USD != 30 {
		t.Errorf("the installation's month after none: %+v", r)
	}
}

// TestOverBudgetRunA5: a scheduled turn a budget stopped is the
// scheduler's over budget run, with the budget's reason said once.
func TestOverBudgetRunA5(t *testing.T) {
	reason := errors.New("the daily budget of agent default is reached")
	err := overBudgetRun(fmt.Errorf("%w: %w", agents.ErrOverBudget, reason))
	if !errors.Is(err, scheduler.ErrOverBudget) || err.Error() != "over budget: the daily budget of agent default is reached" {
		t.Errorf("%v", err)
	}
	other := errors.New("model down")
	if overBudgetRun(other) != other {
		t.Error("another error was changed")
	}
}

// TestBudgetKnowsTheChatSourceA5: the budget takes the owner's one more
// turn for the source the runtime gives the owner's messages.
func TestBudgetKnowsTheChatSourceA5(t *testing.T) {
	if got := (agents.Input{Chat: "telegram:1"}).Source(); got != budget.SourceChat {
		t.Errorf("the runtime's chat source is %q, the budget's %q", got, budget.SourceChat)
	}
}
