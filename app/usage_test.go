package app

import (
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/agents/budget"
	"github.com/jarvisbot/jarvisbot/agents/usage"
	"github.com/jarvisbot/jarvisbot/store"
)

func TestUsageText(t *testing.T) {
	for _, tt := range []struct {
		name string
		sum  UsageSummary
		want []string
		not  []string
	}{
		{"nothing yet", UsageSummary{}, []string{"No model calls this month yet."}, []string{"Today"}},
		{"priced, with the gate's saving", UsageSummary{
			Today:     usage.Totals{Calls: 2, InputTokens: 1500, Cost: 0.01},
			Month:     usage.Totals{Calls: 40, Errors: 1, InputTokens: 1_200_000, Cost: 3.5, ToolTokens: 100, CatalogTokens: 1000},
			TopAgents: []usage.Row{{Key: "default", Totals: usage.Totals{Calls: 30, Cost: 3}}, {Key: "inbox", Totals: usage.Totals{Calls: 10, Cost: 0.5}}},
		}, []string{"Today: 2 model calls, 1.5k tokens, $0.01.", "This month: 40 model calls, 1.2M tokens, $3.50 (1 failed).",
			"Agents this month: default $3.00 (30 calls), inbox $0.50 (10 calls).", "The gate kept 90% of 1k schema tokens"}, []string{"no price"}},
		{"a model with no price", UsageSummary{Month: usage.Totals{Calls: 1, OutputTokens: 5, Unpriced: 1}},
			[]string{"This month: 1 model call, 5 tokens, no price.", "add them under prices:"}, nil},
	} {
		got := UsageText(tt.sum)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q is missing from\n%s", tt.name, w, got)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(got, n) {
				t.Errorf("%s: %q should not be in\n%s", tt.name, n, got)
			}
		}
	}
}

func TestBudgetsText(t *testing.T) {
	rows := []BudgetRow{
		{Agent: "", Period: store.PeriodDay},
		{Agent: "", Period: store.PeriodMonth, Limit: budget.Limit{USD: 50}, Spent: budget.Spent{USD: 12.4}},
		{Agent: "research", Period: store.PeriodDay, Limit: budget.Limit{Tokens: 2_000_000}, Spent: budget.Spent{Tokens: 1_200_000}},
	}
	got := BudgetsText(rows)
	for _, w := range []string{"Budgets: monthly for the whole installation $12.40 of $50.00;", "daily for agent research "} {
		if !strings.Contains(got, w) {
			t.Errorf("%q is missing from %q", w, got)
		}
	}
	if strings.Contains(got, "daily for the whole installation") {
		t.Errorf("a limit that is not set is shown: %q", got)
	}
	if BudgetsText(rows[:1]) != "" {
		t.Errorf("no limit set, yet %q", BudgetsText(rows[:1]))
	}
}
