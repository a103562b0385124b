package store

import (
	"context"
	"time"
)

// Budget periods (A5): the owner's day and month, in the owner's time
// zone.
const (
	PeriodDay   = "day"
	PeriodMonth = "month"
)

// BudgetLimit is a limit the owner set on the dashboard for the whole
// installation (Agent "") or one agent, for one period: it wins over
// the config's budgets. A limit of neither money nor tokens says "no
// limit", over a limit the config sets.
type BudgetLimit struct {
	Agent  string
	Period string // PeriodDay or PeriodMonth
	USD    float64
	Tokens int64
	SetAt  time.Time
}

// Decisions of a budget offer.
const (
	OfferOpen    = "open"    // the buttons wait for the owner
	OfferRaised  = "raised"  // the limit was raised for the period by Factor
	OfferAllowed = "allowed" // one more turn of Stopped was allowed
)

// BudgetOffer is what the owner was offered when a limit was reached: the
// buttons to raise it for the period or to allow one more turn. It is
// decided once, as an approval is.
type BudgetOffer struct {
	ID string
	// Agent and Period name the limit ("" for the whole installation),
	// Start the period it was reached in.
	Agent  string
	Period string
	Start  time.Time
	// Stopped is the agent whose turn the limit stopped: one more turn
	// is that agent's.
	Stopped   string
	State     string
	Factor    float64 // for OfferRaised: 1.5 raises by half, 2 doubles
	TurnTaken bool    // for OfferAllowed: the turn went through
	DecidedBy string
	CreatedAt time.Time
	DecidedAt time.Time
}

// Budgets keeps what budgets need besides the record of model calls: the
// owner's limits, the offers made when one was reached, and which
// notices went out, so a restart repeats none.
type Budgets interface {
	BudgetLimits(ctx context.Context) ([]BudgetLimit, error)
	// SetBudgetLimit sets or replaces the owner's limit of l.Agent and
	// l.Period; ClearBudgetLimit removes it (the config's applies again).
	SetBudgetLimit(ctx context.Context, l BudgetLimit) error
	ClearBudgetLimit(ctx context.Context, agent, period string) error

	// MarkBudgetNotice records that the notice named key went out; it
	// reports false when it had been before. UnmarkBudgetNotice takes the
	// mark back when the notice could not be sent.
	MarkBudgetNotice(ctx context.Context, key string, at time.Time) (bool, error)
	UnmarkBudgetNotice(ctx context.Context, key string) error

	AddBudgetOffer(ctx context.Context, o BudgetOffer) error
	// DropBudgetOffer forgets an open offer the owner could not be shown,
	// so that the next stopped turn offers it again.
	DropBudgetOffer(ctx context.Context, id string) error
	BudgetOffer(ctx context.Context, id string) (BudgetOffer, error)
	// BudgetOffers returns the offers made for periods starting at or
	// after since.
	BudgetOffers(ctx context.Context, since time.Time) ([]BudgetOffer, error)
	// DecideBudgetOffer decides an open offer once: a second decision is
	// ECONFLICT and changes nothing, an unknown id ENOTFOUND.
	DecideBudgetOffer(ctx context.Context, id, state string, factor float64, by string, at time.Time) (BudgetOffer, error)
	// TakeBudgetTurn takes the one more turn allowed to agent, once; it
	// reports false when none is left.
	TakeBudgetTurn(ctx context.Context, agent string) (bool, error)

	// ModelCallSums sums the calls at or after since by agent, provider
	// and model: one ModelCall per group, its tokens the group's sums.
	ModelCallSums(ctx context.Context, since time.Time) ([]ModelCall, error)
}
