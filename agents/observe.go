package agents

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot/store"
)

// Observer hears what the runtime does, for an operator's metrics
// (issue 20): each finished turn, each tool call, and how many tools the
// gate offered a turn. Calls come from the turns' goroutines at once, so
// an Observer must be safe for concurrent use, and quick: it runs inside
// the turn. Labels are from small fixed sets (below), never error text.
type Observer interface {
	// TurnDone is a turn's end: agent is whose turn it was, outcome one
	// of the Turn* values.
	TurnDone(agent, outcome string, took time.Duration)
	// ToolCalled is one call's end: agent is whose call it was, tier the
	// call's tier ("" when it was refused before one applied), outcome
	// one of the Call* values.
	ToolCalled(agent, tier, outcome string)
	// Offered is the number of tools the gate offered a turn as it began.
	Offered(n int)
}

// The outcomes an Observer hears.
const (
	TurnOK       = "ok"
	TurnError    = "error"
	TurnAwaiting = "awaiting_approval" // stopped while the owner decides; the decision carries it on
	TurnStopped  = "stopped"           // cancelled: a shutdown, /cancel, a chat handed to another replica

	CallOK        = "ok"
	CallError     = "error"
	CallRefused   = "refused"
	CallDenied    = "denied"
	CallExpired   = "expired"
	CallAwaiting  = "awaiting"
	CallElsewhere = "elsewhere" // carried out by another replica
	CallCancelled = "cancelled"
	CallOther     = "other"
)

// observer is the Runtime's Observer, or one that hears nothing.
func (r *Runtime) observer() Observer {
	if r.Observer == nil {
		return noObserver{}
	}
	return r.Observer
}

type noObserver struct{}

func (noObserver) TurnDone(string, string, time.Duration) {}
func (noObserver) ToolCalled(string, string, string)      {}
func (noObserver) Offered(int)                            {}

// observeTurn reports a turn that began at began once it ends with *err
// (deferred, so every return counts). Its duration is wall time, whatever
// the runtime's clock: an operator measures how long the owner waited.
func (r *Runtime) observeTurn(ctx context.Context, agent string, began time.Time, err *error) {
	r.observer().TurnDone(cmp.Or(agent, store.DefaultAgent), turnOutcome(ctx, *err), time.Since(began))
}

// turnOutcome classes a turn's error.
func turnOutcome(ctx context.Context, err error) string {
	switch {
	case err == nil:
		return TurnOK
	case errors.Is(err, ErrAwaitingApproval):
		return TurnAwaiting
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return TurnStopped
	}
	return TurnError
}

// observeCalls reports a step's calls.
func (r *Runtime) observeCalls(agent string, records []CallRecord) {
	o := r.observer()
	for _, rec := range records {
		o.ToolCalled(agent, string(rec.Tier), callOutcome(rec.Outcome))
	}
}

// callOutcome classes a CallRecord's outcome, whose text may carry an
// error's words, into the fixed set.
func callOutcome(outcome string) string {
	switch {
	case outcome == "ok", outcome == "approved":
		return CallOK
	case outcome == outcomeAwaiting:
		return CallAwaiting
	case outcome == outcomeCarriedElsewhere:
		return CallElsewhere
	case outcome == "denied":
		return CallDenied
	case outcome == "expired":
		return CallExpired
	case outcome == "cancelled":
		return CallCancelled
	case strings.HasPrefix(outcome, "refused"):
		return CallRefused
	case strings.HasPrefix(outcome, "error"), outcome == "tool error":
		return CallError
	}
	return CallOther
}
