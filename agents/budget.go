package agents

import (
	"context"
	"errors"
	"fmt"
)

// Budget says whether an agent may start a turn (A5): the installation's
// and the agent's daily and monthly limits, checked before the turn calls
// the model. It is consulted once per turn, so that "one more turn" the
// owner allows is a whole turn, not one of its model calls.
type Budget interface {
	// Allow returns nil when agent may start a turn caused by source
	// (Input.Source), else an error that says which limit is reached,
	// what was spent against it and when it resets.
	Allow(ctx context.Context, agent, source string) error
}

// ErrOverBudget is wrapped by a turn's error when a budget stopped it
// before any model call: nothing of the turn was stored, so the message
// can wait and be answered as new once the owner lets it through.
var ErrOverBudget = errors.New("over budget")

// allowed asks the budget, when there is one, whether the turn may start.
func (r *Runtime) allowed(ctx context.Context, in Input) error {
	if r.Budget == nil {
		return nil
	}
	ag, err := r.Store.Agent(ctx, in.Agent)
	if err != nil {
		return nil // the turn says so once its message is stored
	}
	if err := r.Budget.Allow(ctx, ag.Name, in.Source()); err != nil {
		if errors.Is(err, ErrOverBudget) {
			return err
		}
		return fmt.Errorf("%w: %w", ErrOverBudget, err)
	}
	return nil
}
