package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/names"

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

// BudgetRow is one limit as the dashboard shows it: the config's, the
// owner's over it, and what counts now with what was spent.
type BudgetRow struct {
	Agent  string // "" for the whole installation
	Period string // store.PeriodDay or store.PeriodMonth
	Config budget.Limit
	// Owner is the limit the owner set over the config's, nil for none.
	Owner *budget.Limit
	// Limit is what counts now, Raised what the owner's raises for this
	// period multiplied it by; Spent and Resets are the period's, for a
	// limit that is set.
	Limit  budget.Limit
	Raised float64
	Spent  budget.Spent
	Resets time.Time
}

// Budgets lists the limits of the whole installation and of each agent
// (those that exist and those a budget names), daily then monthly.
func (in *Installation) Budgets(ctx context.Context) ([]BudgetRow, error) {
	c := in.Env.NewBudget(in.Config, in.DB, nil, nil)
	own, err := in.DB.BudgetLimits(ctx)
	if err != nil {
		return nil, err
	}
	list, err := in.DB.Agents(ctx)
	if err != nil {
		return nil, err
	}
	scopes := map[string]bool{}
	for _, a := range list {
		scopes[a.Name] = true
	}
	for name := range in.Config.Budgets.Agents {
		scopes[name] = true
	}
	for _, l := range own {
		scopes[l.Agent] = true
	}
	delete(scopes, "")
	names := append([]string{""}, slices.Sorted(maps.Keys(scopes))...)
	conf := BudgetLimits(in.Config)
	var rows []BudgetRow
	for _, scope := range names {
		p := conf.Agents[scope]
		if scope == "" {
			p = conf.All
		}
		rules, err := c.Rules(ctx, scope)
		if err != nil {
			return nil, err
		}
		rules = slices.DeleteFunc(rules, func(r budget.Rule) bool { return r.Agent != scope })
		spent, err := c.Spent(ctx, rules)
		if err != nil {
			return nil, err
		}
		for _, period := range []string{store.PeriodDay, store.PeriodMonth} {
			row := BudgetRow{Agent: scope, Period: period, Config: p.Day, Raised: 1}
			if period == store.PeriodMonth {
				row.Config = p.Month
			}
			row.Limit = row.Config
			for _, l := range own {
				if l.Agent == scope && l.Period == period {
					o := budget.Limit{USD: l.USD, Tokens: l.Tokens}
					row.Owner, row.Limit = &o, o
				}
			}
			for i, r := range rules {
				if r.Period == period {
					row.Limit, row.Raised, row.Spent, row.Resets = r.Limit, r.Raised, spent[i], r.Resets
				}
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// SetBudget sets the owner's limit of agent ("" for the whole
// installation) for period, over the config's: "" takes the owner's limit
// away (the config's counts again), "none" lifts the limit, else "$5" or
// "2M tokens". It says what counts now.
func (in *Installation) SetBudget(ctx context.Context, agent, period, limit string) (string, error) {
	agent = strings.TrimSpace(agent)
	if agent != "" {
		if err := names.ValidAgent(agent); err != nil {
			return "", jarvisbot.Errorf(jarvisbot.EINVALID, "budget: %w", err)
		}
	}
	if period != store.PeriodDay && period != store.PeriodMonth {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "budget period %q: choose %s or %s", period, store.PeriodDay, store.PeriodMonth)
	}
	whose := "the whole installation"
	if agent != "" {
		whose = "agent " + agent
	}
	word := "daily"
	if period == store.PeriodMonth {
		word = "monthly"
	}
	if strings.TrimSpace(limit) == "" {
		if err := in.DB.ClearBudgetLimit(ctx, agent, period); err != nil {
			return "", err
		}
		conf := BudgetLimits(in.Config)
		p := conf.Agents[agent]
		if agent == "" {
			p = conf.All
		}
		l := p.Day
		if period == store.PeriodMonth {
			l = p.Month
		}
		return fmt.Sprintf("The %s budget of %s is the config's again: %s.", word, whose, l), nil
	}
	l, err := config.ParseLimit(limit)
	if err != nil {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "budget: %w", err)
	}
	if err := in.DB.SetBudgetLimit(ctx, store.BudgetLimit{Agent: agent, Period: period, USD: l.USD, Tokens: l.Tokens, SetAt: in.Env.Now()}); err != nil {
		return "", err
	}
	set := budget.Limit{USD: l.USD, Tokens: l.Tokens}
	if set.IsZero() {
		return fmt.Sprintf("The %s budget of %s is lifted: no limit, whatever the config says.", word, whose), nil
	}
	return fmt.Sprintf("The %s budget of %s is now %s.", word, whose, set), nil
}

// SetBudget is the owner's limit set inside serve: the messages a budget
// held are tried again at once, answered if the new limit allows them.
func (s *Session) SetBudget(ctx context.Context, agent, period, limit string) (string, error) {
	note, err := s.Installation().SetBudget(ctx, agent, period, limit)
	if err == nil {
		s.Desk.Released()
	}
	return note, err
}
