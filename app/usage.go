package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/budget"
	"github.com/jarvisbot/jarvisbot/agents/usage"
	"github.com/jarvisbot/jarvisbot/store"
)

// Prices is the installation's price table: the shipped prices with the
// owner's `prices:` over them.
func (in *Installation) Prices() usage.Prices {
	owner := make(map[string]usage.Price, len(in.Config.Prices))
	for m, p := range in.Config.Prices {
		owner[m] = usage.Price{Input: p.Input, Output: p.Output, CacheRead: p.CacheRead, CacheWrite: p.CacheWrite}
	}
	return usage.NewPrices(owner)
}

// Usage is the model calls since a time, grouped one way (usage.ByAgent,
// ByModel, ByDay or BySource), days in the owner's time zone: what
// `jarvisbot usage`, the dashboard and the MCP surface show.
func (in *Installation) Usage(ctx context.Context, since time.Time, by string) (usage.Report, error) {
	calls, err := in.DB.ModelCallsSince(ctx, since)
	if err != nil {
		return usage.Report{}, err
	}
	rows, total, err := usage.Group(calls, by, in.Prices(), in.Config.Location())
	if err != nil {
		return usage.Report{}, err
	}
	return usage.Report{Since: since, By: by, Rows: rows, Total: total}, nil
}

// UsageSummary is today and this month at a glance, with the month's
// agents by cost: `/usage` in chat, the status an app reads.
type UsageSummary struct {
	Today     usage.Totals `json:"today"`
	Month     usage.Totals `json:"month"`
	TopAgents []usage.Row  `json:"top_agents"` // this month, at most three
}

// UsageSummary sums today's and this month's calls, in the owner's time
// zone.
func (in *Installation) UsageSummary(ctx context.Context) (UsageSummary, error) {
	loc := in.Config.Location()
	now := in.Env.Now()
	day, month := usage.DayStart(now, loc), usage.MonthStart(now, loc)
	calls, err := in.DB.ModelCallsSince(ctx, month) // today is in this month

	if err != nil {
		return UsageSummary{}, err
	}
	prices := in.Prices()
	var sum UsageSummary
	for _, c := range calls {
		sum.Month.Add(c, prices)
		if !c.At.Before(day) {
			sum.Today.Add(c, prices)
		}
	}
	rows, _, err := usage.Group(calls, usage.ByAgent, prices, loc)
	if err != nil {
		return UsageSummary{}, err
	}
	sum.TopAgents = rows[:min(len(rows), 3)]
	return sum, nil
}

// UsageText is the summary as /usage says it.
func UsageText(sum UsageSummary) string {
	if sum.Month.Calls == 0 {
		return "No model calls this month yet."
	}
	var b strings.Builder
	line := func(period string, t usage.Totals) {
		fmt.Fprintf(&b, "%s: %s, %s tokens, %s", period, plural(t.Calls, "model call"), usage.Tokens(t.Tokens()), t.CostText())
		if t.Errors > 0 {
			fmt.Fprintf(&b, " (%d failed)", t.Errors)
		}
		b.WriteString(".\n")
	}
	line("Today", sum.Today)
	line("This month", sum.Month)
	if len(sum.TopAgents) > 0 {
		b.WriteString("Agents this month:")
		for i, r := range sum.TopAgents {
			sep := ","
			if i == 0 {
				sep = ""
			}
			fmt.Fprintf(&b, "%s %s %s (%s)", sep, r.Key, r.CostText(), plural(r.Calls, "call"))
		}
		b.WriteString(".\n")
	}
	if s := sum.Month.SavedText(); s != "" {
		fmt.Fprintf(&b, "The gate kept %s out of this month's calls.\n", s)
	}
	if sum.Month.Unpriced > 0 {
		b.WriteString("Some models have no price: add them under prices: in the config.\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// plural writes a count with its noun: "1 call", "2 calls".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// appClocked stamps each model call with the app's clock, the one the
// usage figures, the budgets and the Overview count days on: the runtime
// keeps the wall clock for its messages, and a call must fall on the same
// day for all of them.
type appClocked struct {
	next agents.UsageRecorder
	now  func() time.Time
}

func (u appClocked) RecordModelCall(ctx context.Context, c store.ModelCall) error {
	c.At = u.now()
	return u.next.RecordModelCall(ctx, c)
}

// BudgetsText is the limits that are set, with what their period spent,
// as /usage adds them: "Budgets: monthly for the whole installation $12.40
// of $50.00; daily for agent research 1.2M of 2M tokens."; "" when none is
// set.
func BudgetsText(rows []BudgetRow) string {
	var parts []string
	for _, r := range rows {
		if r.Limit.IsZero() {
			continue
		}
		period := "daily"
		if r.Period == store.PeriodMonth {
			period = "monthly"
		}
		whose := budget.Rule{Agent: r.Agent}.Whose() // as the budget's own messages name it
		parts = append(parts, fmt.Sprintf("%s for %s %s", period, whose, r.Spent.Against(r.Limit)))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Budgets: " + strings.Join(parts, "; ") + "."
}
