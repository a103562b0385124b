package agents

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
)

// dice is a builtin that the runtime has never heard of: a capability in
// the catalog and a runner registered for it, as the next builtin
// (builtin:browser) will be.
func dice(tier catalog.Tier) catalog.Capability {
	return catalog.Capability{
		ID:          "builtin:dice",
		Kind:        catalog.KindBuiltin,
		Source:      "builtin",
		Name:        "dice",
		Description: "Rolls a die.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"sides":{"type":"integer"}},"additionalProperties":false}`),
		Tier:        tier,
		Connected:   true,
	}
}

// callLog is a runner that answers every call and keeps what it was given.
type callLog struct {
	mu    sync.Mutex
	calls []catalog.Call
}

func (l *callLog) Run(_ context.Context, c catalog.Call) (catalog.Output, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, c)
	return catalog.Output{Text: "rolled a 4"}, nil
}

func (l *callLog) ran() []catalog.Call {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]catalog.Call(nil), l.calls...)
}

// TestNewBuiltinRunsThroughTheRuntimesChecksC2C3A2: a builtin of a kind the
// runtime does not know joins by registering a runner, and its calls go
// through every check the runtime makes for every tool: it runs only when
// offered this turn, an ask-tier call waits for the owner's approval and
// runs only once approved, and what came of it is on the activity board.
func TestNewBuiltinRunsThroughTheRuntimesChecksC2C3A2(t *testing.T) {
	cases := []struct {
		name    string
		tier    catalog.Tier
		offered bool
		approve *bool // nil: no approval is asked
		ran     bool
		result  string
		board   string // the outcome on the activity board, "" for none
	}{
		{name: "monitor runs and is recorded", tier: catalog.TierMonitor, offered: true, ran: true, result: "rolled a 4", board: "ok"},
		{name: "safe runs and is not recorded", tier: catalog.TierSafe, offered: true, ran: true, result: "rolled a 4"},
		{name: "ask waits and runs once approved", tier: catalog.TierAsk, offered: true, approve: new(true), ran: true, result: "rolled a 4", board: "ok"},
		{name: "ask denied does not run", tier: catalog.TierAsk, offered: true, approve: new(false), result: "denied", board: "denied"},
		{name: "not offered is refused", tier: catalog.TierMonitor, result: "not offered"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, "anthropic")
			runner := &callLog{}
			e.rt.Runners["builtin:dice"] = runner
			if c.offered {
				if err := e.catalog.Add(dice(c.tier)); err != nil {
					t.Fatal(err)
				}
			}
			e.llm.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{call("builtin:dice", `{"sides":6}`)}}, fakellm.Step{Text: "done"})
			if c.approve != nil {
				go func() {
					a := <-e.asked
					if n := len(runner.ran()); n != 0 || a.Tool != "builtin:dice" {
						t.Errorf("approval asked for %s after %d runs; want builtin:dice before it runs", a.Tool, n)
					}
					if _, err := e.engine.Decide(context.Background(), a.ID, "console", *c.approve, false); err != nil {
						t.Errorf("decide: %v", err)
					}
				}()
			}
			r := e.turn(t, "roll a die")
			if r.Text != "done" || len(r.Calls) != 1 {
				t.Fatalf("turn %+v", r)
			}
			ran := runner.ran()
			switch {
			case !c.ran && len(ran) != 0:
				t.Errorf("the runner ran %d times, want none", len(ran))
			case c.ran && (len(ran) != 1 || string(ran[0].Args) != `{"sides":6}` || ran[0].Agent != "default" || ran[0].Chat != "console" || ran[0].Cap.ID != "builtin:dice"):
				t.Errorf("the runner got %+v, want one call of builtin:dice with its arguments, agent and chat", ran)
			}
			if res := e.lastResults(t); len(res) != 1 || !strings.Contains(res[0], c.result) {
				t.Errorf("the model got %q, want %q", res, c.result)
			}
			act, err := e.db.RecentActivity(context.Background(), 10)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case c.board == "" && len(act) != 0:
				t.Errorf("activity %+v, want none", act)
			case c.board != "" && (len(act) != 1 || act[0].Tool != "builtin:dice" || act[0].Tier != string(c.tier) || act[0].Outcome != c.board || act[0].Args != `{"sides":6}`):
				t.Errorf("activity %+v, want builtin:dice at %s with outcome %q", act, c.tier, c.board)
			}
		})
	}
}

// TestToolWithoutRunnerIsAnErrorResultA2: a tool in the catalog whose kind
// has no runner is answered with an error result that names it, recorded
// like any call that failed; the turn goes on.
func TestToolWithoutRunnerIsAnErrorResultA2(t *testing.T) {
	e := newEnv(t, "anthropic")
	if err := e.catalog.Add(dice(catalog.TierMonitor)); err != nil {
		t.Fatal(err)
	}
	e.llm.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{call("builtin:dice", `{"sides":6}`)}}, fakellm.Step{Text: "it cannot roll"})
	r := e.turn(t, "roll a die")
	if r.Text != "it cannot roll" || len(r.Calls) != 1 || !strings.Contains(r.Calls[0].Outcome, "no runner") {
		t.Fatalf("turn %+v, want the call answered with no runner", r)
	}
	if res := e.lastResults(t); len(res) != 1 || !strings.Contains(res[0], "builtin:dice cannot be run here") {
		t.Errorf("the model got %q", res)
	}
	act, _ := e.db.RecentActivity(context.Background(), 10)
	if len(act) != 1 || !strings.Contains(act[0].Outcome, "no runner") {
		t.Errorf("activity %+v", act)
	}
}

// TestRunnersByIDThenKindA2: a call goes to the runner of its id before
// the runner of its kind, and to none when neither is registered.
func TestRunnersByIDThenKindA2(t *testing.T) {
	answer := func(s string) Runner {
		return RunnerFunc(func(context.Context, catalog.Call) (catalog.Output, error) { return catalog.Output{Text: s}, nil })
	}
	rs := Runners{"builtin": answer("kind"), "builtin:dice": answer("id")}
	for id, want := range map[string]string{"builtin:dice": "id", "builtin:coin": "kind", "cli:gh": ""} {
		kind, _, _ := catalog.ParseID(id)
		c := catalog.Call{Cap: &catalog.Capability{ID: id, Kind: kind}}
		r := rs.For(c.Cap)
		if want == "" {
			if r != nil {
				t.Errorf("%s: a runner was found, want none", id)
			}
			continue
		}
		if r == nil {
			t.Errorf("%s: no runner, want the %s runner", id, want)
			continue
		}
		if out, err := r.Run(context.Background(), c); err != nil || out.Text != want {
			t.Errorf("%s: %q, %v; want the %s runner", id, out.Text, err, want)
		}
	}
}

// TestCallDeadlineForEveryKindM2: a call whose runner does not answer ends
// at the runtime's deadline, whether the runner heeds its context or not;
// the model is told, the board records it, and the turn goes on.
func TestCallDeadlineForEveryKindM2(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	runners := map[string]Runner{
		"heeds its context": RunnerFunc(func(ctx context.Context, _ catalog.Call) (catalog.Output, error) {
			<-ctx.Done()
			return catalog.Output{}, ctx.Err()
		}),
		"ignores its context": RunnerFunc(func(context.Context, catalog.Call) (catalog.Output, error) {
			<-release
			return catalog.Output{Text: "too late"}, nil
		}),
	}
	for name, runner := range runners {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, "anthropic")
			e.rt.CallTimeout = 50 * time.Millisecond
			e.rt.Runners["builtin:dice"] = runner
			if err := e.catalog.Add(dice(catalog.TierMonitor)); err != nil {
				t.Fatal(err)
			}
			e.llm.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{call("builtin:dice", `{"sides":6}`)}}, fakellm.Step{Text: "it hung"})
			r := e.turn(t, "roll a die")
			if r.Text != "it hung" || len(r.Calls) != 1 || !strings.Contains(r.Calls[0].Outcome, "did not finish within 50ms") {
				t.Fatalf("turn %+v, want the call stopped at its deadline", r)
			}
			act, _ := e.db.RecentActivity(context.Background(), 10)
			if len(act) != 1 || !strings.Contains(act[0].Outcome, "did not finish") {
				t.Errorf("activity %+v", act)
			}
		})
	}
}

// timed is a runner that keeps a deadline of its own and reports the one
// it was given.
type timed struct {
	own  time.Duration
	seen chan time.Time
}

func (r timed) Run(ctx context.Context, _ catalog.Call) (catalog.Output, error) {
	d, _ := ctx.Deadline()
	r.seen <- d
	return catalog.Output{Text: "ok"}, nil
}

func (r timed) Timeout(catalog.Call) time.Duration { return r.own }

// TestRunnerKeepsItsOwnDeadlineM2: a runner with a deadline of its own (an
// MCP server configured for slow tools) gets that long, not the runtime's
// default; one without gets the default.
func TestRunnerKeepsItsOwnDeadlineM2(t *testing.T) {
	cases := []struct {
		name     string
		runner   Runner
		min, max time.Duration
	}{
		{"own deadline", timed{own: time.Hour, seen: make(chan time.Time, 1)}, time.Hour, time.Hour + runnerGrace + time.Minute},
		{"no deadline of its own", timed{seen: make(chan time.Time, 1)}, 10 * time.Minute, 11 * time.Minute},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rt := &Runtime{CallTimeout: 10 * time.Minute, Runners: Runners{"builtin": c.runner}}
			start := time.Now()
			if _, err := rt.execute(context.Background(), catalog.Call{Cap: &catalog.Capability{ID: "builtin:dice", Kind: catalog.KindBuiltin}}); err != nil {
				t.Fatal(err)
			}
			got := (<-c.runner.(timed).seen).Sub(start)
			if got < c.min || got > c.max {
				t.Errorf("deadline in %s, want between %s and %s", got, c.min, c.max)
			}
		})
	}
}

var _ Timed = timed{}
