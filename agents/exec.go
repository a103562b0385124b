package agents

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
)

// Runner runs the calls of one kind of tool: MCP tools through the host,
// CLI programs, the wiki, the skillbook, and whatever builtin comes next
// (A2). The runtime has made every check before Run is called (offered
// this turn, never-list, schema, tier and approval; C2, C3) and records
// the outcome on the activity board after it; a runner only runs the call.
// Run must return when ctx ends; the runtime stops waiting for it at the
// call's deadline in any case.
type Runner interface {
	Run(ctx context.Context, c catalog.Call) (catalog.Output, error)
}

// RunnerFunc is a function used as a Runner.
type RunnerFunc func(ctx context.Context, c catalog.Call) (catalog.Output, error)

// Run calls f.
func (f RunnerFunc) Run(ctx context.Context, c catalog.Call) (catalog.Output, error) {
	return f(ctx, c)
}

// Timed is a Runner that holds its calls to deadlines of its own (an MCP
// server's configured timeout, a CLI tool's). The runtime gives such a call
// that long, plus a moment for the runner to say in its own words that the
// time ran out, instead of Runtime.CallTimeout: a longer configured timeout
// is honoured, and the runner's message is what the model reads. A zero
// duration leaves the call to CallTimeout.
type Timed interface {
	Timeout(c catalog.Call) time.Duration
}

// Describer is a Runner that says in the owner's words what one of its
// calls will do, for the approval request the owner decides on (CH2): the
// wiki names the page and its text, Gmail the recipient and subject, the
// calendar the event and its time. Describe must change nothing; it may
// read what it needs to name things (the event an id points to) within
// ctx, which is short. ok false leaves the call to the generic labelled
// form every other tool gets (an MCP tool's, a CLI program's).
type Describer interface {
	Describe(ctx context.Context, c catalog.Call) (d catalog.Description, ok bool)
}

// Runners is the registry of the runners the runtime calls, keyed by a
// capability id ("builtin:wiki") or a kind ("mcp", "cli"). A call goes to
// the runner of its id, else to the runner of its kind; a call with
// neither gets an error result that names it, so a new kind of tool needs
// a runner registered where the runtime is built and no change here.
type Runners map[string]Runner

// For returns the runner of a capability, or nil when none is registered.
func (rs Runners) For(cp *catalog.Capability) Runner {
	if r := rs[cp.ID]; r != nil {
		return r
	}
	return rs[string(cp.Kind)]
}

const (
	// defaultCallTimeout bounds a call whose runner keeps no deadline of
	// its own (M2).
	defaultCallTimeout = time.Minute
	// runnerGrace is the time a Timed runner gets past its own deadline to
	// report it (an MCP server gets its hung check, a CLI program's group
	// is killed) before the runtime stops waiting.
	runnerGrace = 5 * time.Second
)

// execute runs one call that passed every check under its deadline (M2).
// A runner that does not return by then is left behind with its context
// cancelled: the turn goes on, and the call is reported as stopped. When
// the turn itself ends (a shutdown), the runner is waited for, so that a
// call that happened is recorded as it happened.
func (r *Runtime) execute(ctx context.Context, c catalog.Call) (catalog.Output, error) {
	run := r.Runners.For(c.Cap)
	if run == nil {
		return catalog.Output{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s cannot be run here: no runner for it or for %s tools is registered with the agent runtime", c.Cap.ID, c.Cap.Kind)
	}
	limit := cmp.Or(r.CallTimeout, defaultCallTimeout)
	if t, ok := run.(Timed); ok {
		if own := t.Timeout(c); own > 0 {
			limit = own + runnerGrace
		}
	}
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	type answer struct {
		out catalog.Output
		err error
	}
	done := make(chan answer, 1)
	go func() {
		out, err := run.Run(cctx, c)
		done <- answer{out, err}
	}()
	var a answer
	select {
	case a = <-done:
	case <-cctx.Done():
		a.err = context.DeadlineExceeded
		if ctx.Err() == nil {
			break // the deadline: stop waiting
		}
		// The turn ended: a call that happens now is still recorded, as
		// long as it keeps within its deadline.
		deadline, _ := cctx.Deadline()
		wait := time.NewTimer(time.Until(deadline))
		defer wait.Stop()
		select {
		case a = <-done:
		case <-wait.C:
			a.err = ctx.Err()
		}
	}
	if a.err != nil && errors.Is(a.err, context.DeadlineExceeded) && errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		return catalog.Output{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s did not finish within %s and was stopped; try again with less at once, or tell the owner it is not answering", c.Cap.ID, limit)
	}
	return a.out, a.err
}
