package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/budget"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/scheduler"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// BudgetLimits is the config's budgets as the budget package takes them.
// The config was checked when it was loaded: a limit that does not parse
// here cannot occur, and counts as none.
func BudgetLimits(cfg config.Config) budget.Limits {
	out := budget.Limits{All: budgetPair(cfg.Budgets.Daily, cfg.Budgets.Monthly), Agents: map[string]budget.Pair{}}
	for name, b := range cfg.Budgets.Agents {
		out.Agents[name] = budgetPair(b.Daily, b.Monthly)
	}
	return out
}

func budgetPair(daily, monthly string) budget.Pair {
	return budget.Pair{Day: budgetLimit(daily), Month: budgetLimit(monthly)}
}

func budgetLimit(s string) budget.Limit {
	l, _ := config.ParseLimit(s)
	return budget.Limit{USD: l.USD, Tokens: l.Tokens}
}

// NewBudget is the budget checker of an installation: the config's
// budgets with the owner's limits from the store over them, priced by the
// installation's price table, counted in the owner's time zone. notify
// tells the owner.
func (a *Env) NewBudget(cfg config.Config, db *sqlstore.DB, log *slog.Logger, notify budget.Notifier) *budget.Checker {
	return budget.New(budget.Options{Store: db, Limits: func() budget.Limits { return BudgetLimits(cfg) },
		Prices: (&Installation{Config: cfg}).Prices(), Zone: cfg.Location(), Clock: a.Clock, Notify: notify, Log: log})
}

// sessionNotifier tells the owner through the session's desk, in the
// owner's main chat; the desk is built after the checker it carries.
type sessionNotifier struct {
	s    *Session
	chat string
}

func (n sessionNotifier) Warn(ctx context.Context, text string) error {
	return n.s.Desk.BudgetNotifier(n.chat).Warn(ctx, text)
}

func (n sessionNotifier) Reached(ctx context.Context, text string, o store.BudgetOffer) error {
	return n.s.Desk.BudgetNotifier(n.chat).Reached(ctx, text, o)
}

// overBudgetRun makes a scheduled turn a budget stopped the scheduler's
// over budget run, with the budget's reason.
func overBudgetRun(err error) error {
	if !errors.Is(err, agents.ErrOverBudget) {
		return err
	}
	return fmt.Errorf("%w: %s", scheduler.ErrOverBudget, strings.TrimPrefix(err.Error(), agents.ErrOverBudget.Error()+": "))
}
