package agents

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
)

// heard is an Observer that keeps what it hears.
type heard struct {
	mu      sync.Mutex
	turns   []string
	calls   []string // tier/outcome
	offered []int
	agents  map[string]bool // whose turns and calls were heard
}

func (h *heard) TurnDone(agent, outcome string, _ time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.turns = append(h.turns, outcome)
	h.agent(agent)
}

func (h *heard) ToolCalled(agent, tier, outcome string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, tier+"/"+outcome)
	h.agent(agent)
}

func (h *heard) agent(name string) {
	if h.agents == nil {
		h.agents = map[string]bool{}
	}
	h.agents[name] = true
}

func (h *heard) Offered(n int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.offered = append(h.offered, n)
}

// TestObserverHearsTurnsAndCalls: the Observer hears each turn's outcome,
// each call's tier and outcome (in a fixed vocabulary, not error text),
// and the tools the gate offered (issue 20's metrics).
func TestObserverHearsTurnsAndCalls(t *testing.T) {
	e := newEnv(t, "anthropic")
	h := &heard{}
	e.rt.Observer = h
	e.llm.Push(
		fakellm.Step{ToolCalls: []fakellm.ToolCall{
			call("builtin:wiki", `{"action":"write","name":"ideas","body":"garden"}`),
			{Name: "mcp__github__delete_repository", Input: `{}`},
		}},
		fakellm.Step{ToolCalls: []fakellm.ToolCall{call("builtin:wiki", `{"action":"read","name":"ideas"}`)}},
		fakellm.Step{Text: "Saved."},
	)
	e.turn(t, "note my garden idea")
	slices.Sort(h.calls)
	if want := []string{"/refused", "monitor/ok", "safe/ok"}; !slices.Equal(h.calls, want) {
		t.Errorf("calls heard %q, want %q", h.calls, want)
	}
	if len(h.offered) != 1 || h.offered[0] == 0 {
		t.Errorf("offers heard %v, want one turn's non-zero offer", h.offered)
	}
	if len(h.agents) != 1 || !h.agents["default"] {
		t.Errorf("the turn and its calls were heard as those of %v, want the default agent's", h.agents)
	}

	// An ask-tier call the owner denies.
	e.llm.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{call("cli:echo", `{"args":["hi"]}`)}}, fakellm.Step{Text: "ok"})
	go func() {
		a := <-e.asked
		e.engine.Decide(context.Background(), a.ID, "console", false, false)
	}()
	e.turn(t, "say hi")
	if got := h.calls[len(h.calls)-1]; got != "ask/denied" {
		t.Errorf("the denied call was heard as %q", got)
	}

	// A model that is down ends the turn with an error.
	e.llm.Push(fakellm.Step{Status: 400, Text: "bad request"})
	if _, err := e.rt.Turn(context.Background(), Input{Agent: "default", Chat: "console", Text: "again"}); err == nil {
		t.Fatal("the turn succeeded with the model down")
	}

	// A turn stopped while the owner decides waits for the decision.
	ctx, cancel := context.WithCancel(context.Background())
	e.llm.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{call("cli:echo", `{"args":["later"]}`)}})
	go func() {
		<-e.asked
		cancel()
	}()
	if _, err := e.rt.Turn(ctx, Input{Agent: "default", Chat: "console", Text: "say later"}); !errors.Is(err, ErrAwaitingApproval) {
		t.Fatalf("the turn stopped with %v, want it awaiting approval", err)
	}
	if want := []string{TurnOK, TurnOK, TurnError, TurnAwaiting}; !slices.Equal(h.turns, want) {
		t.Errorf("turns heard %q, want %q", h.turns, want)
	}
	if got := h.calls[len(h.calls)-1]; got != "ask/awaiting" {
		t.Errorf("the call left waiting was heard as %q", got)
	}
}

// TestCallOutcomeClasses: every outcome text a record carries falls in
// the fixed set, so no error's words become a metric's label.
func TestCallOutcomeClasses(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"ok", CallOK},
		{"approved", CallOK},
		{"error: dial tcp 10.0.0.1: refused", CallError},
		{"tool error", CallError},
		{"refused: x was not offered", CallRefused},
		{"denied", CallDenied},
		{"expired", CallExpired},
		{outcomeAwaiting, CallAwaiting},
		{outcomeCarriedElsewhere, CallElsewhere},
		{"cancelled", CallCancelled},
		{"something new", CallOther},
	} {
		if got := callOutcome(c.in); got != c.want {
			t.Errorf("callOutcome(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
