package web

import (
	"context"

	"github.com/jarvisbot/jarvisbot/app"
)

// BudgetsTab is the budget form over the running session: a limit saved
// here counts at once, and the messages a budget held are tried again.
func BudgetsTab(s *app.Session) Budgets { return budgetsTab{s} }

type budgetsTab struct{ s *app.Session }

func (t budgetsTab) Budgets(ctx context.Context) ([]BudgetRow, error) {
	rows, err := t.s.Installation().Budgets(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]BudgetRow, 0, len(rows))
	for _, r := range rows {
		v := BudgetRow{Agent: r.Agent, Period: r.Period, Config: r.Config.String(), Limit: r.Limit.String(), Raised: r.Raised > 1, Resets: r.Resets}
		if r.Owner != nil {
			v.Owner = r.Owner.String()
		}
		if !r.Limit.IsZero() {
			v.Spent = r.Spent.Against(r.Limit)
		}
		out = append(out, v)
	}
	return out, nil
}

func (t budgetsTab) SetBudget(ctx context.Context, agent, period, limit string) (string, error) {
	return t.s.SetBudget(ctx, agent, period, limit)
}
