package agents

import (
	"context"
	"errors"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
)

// budgetFunc is a Budget from a function.
type budgetFunc func(ctx context.Context, agent, source string) error

func (f budgetFunc) Allow(ctx context.Context, agent, source string) error {
	return f(ctx, agent, source)
}

// TestBudgetStopsTurnBeforeTheModelA5: a budget that refuses stops the
// turn before anything is stored or the model is called, with an error
// that wraps ErrOverBudget and keeps the budget's reason; the budget is
// asked with the agent's name and the turn's source.
func TestBudgetStopsTurnBeforeTheModelA5(t *testing.T) {
	for _, tc := range []struct {
		name    string
		refuse  error
		in      Input
		source  string
		stopped bool
	}{
		{name: "allowed chat", in: Input{Agent: "default", Chat: "telegram:1", Text: "hi"}, source: "chat"},
		{name: "refused chat", refuse: errors.New("the daily budget of agent default is reached"), in: Input{Agent: "default", Chat: "telegram:1", Text: "hi"}, source: "chat", stopped: true},
		{name: "refused scheduled run", refuse: errors.New("the monthly budget is reached"), in: Input{Agent: "default", Chat: "telegram:1", Text: "brief", Schedule: "morning-brief"}, source: "schedule:morning-brief", stopped: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "anthropic")
			var asked []string
			e.rt.Budget = budgetFunc(func(_ context.Context, agent, source string) error {
				asked = append(asked, agent+" "+source)
				return tc.refuse
			})
			e.llm.Push(fakellm.Step{Text: "Hello."})
			res, err := e.rt.Turn(context.Background(), tc.in)
			if len(asked) != 1 || asked[0] != "default "+tc.source {
				t.Errorf("the budget was asked %q, want once for default from %s", asked, tc.source)
			}
			stored, herr := e.db.History(context.Background(), tc.in.Chat, 10)
			if herr != nil {
				t.Fatal(herr)
			}
			if !tc.stopped {
				if err != nil || res.Text != "Hello." || len(e.llm.Requests()) != 1 {
					t.Fatalf("allowed turn: %q %v, %d model calls", res.Text, err, len(e.llm.Requests()))
				}
				return
			}
			if !errors.Is(err, ErrOverBudget) || !errors.Is(err, tc.refuse) {
				t.Fatalf("refused turn: %v, want ErrOverBudget with the reason", err)
			}
			if n := len(e.llm.Requests()); n != 0 || len(stored) != 0 {
				t.Errorf("refused turn: %d model calls, %d messages stored; want none", n, len(stored))
			}
		})
	}
}
