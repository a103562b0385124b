package agents

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/wiki"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// boardDown is the real store with an activity board that refuses every
// entry, as a full disk or a locked file would.
type boardDown struct {
	*sqlstore.DB
}

func (boardDown) RecordActivity(context.Context, store.Activity) error {
	return errors.New("disk I/O error")
}

// TestActivityNotRecordedIsLoggedC2X4: when the store refuses an entry for
// the activity board, the turn goes on and the log says which call is
// missing from the board (agent, chat, tool, outcome, cause), for a
// monitor call that ran and for ask-tier calls denied or expired.
func TestActivityNotRecordedIsLoggedC2X4(t *testing.T) {
	cases := []struct {
		name    string
		call    fakellm.ToolCall
		decide  func(e *env, a store.Approval)
		tool    string
		outcome string
	}{
		{name: "monitor call ran", call: call("builtin:wiki", `{"action":"write","name":"ideas","body":"garden"}`), tool: "builtin:wiki", outcome: "ok"},
		{name: "ask call denied", call: call("cli:echo", `{"args":["hello"]}`), tool: "cli:echo", outcome: "denied",
			decide: func(e *env, a store.Approval) {
				if _, err := e.engine.Decide(context.Background(), a.ID, "console", false, false); err != nil {
					t.Errorf("deny: %v", err)
				}
			}},
		{name: "ask call expired", call: call("cli:echo", `{"args":["hello"]}`), tool: "cli:echo", outcome: "expired",
			decide: func(e *env, a store.Approval) { e.clk.Advance(11 * time.Minute) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, "anthropic")
			var logs bytes.Buffer // written and read by the turn's goroutine only
			e.rt.Log = slog.New(slog.NewTextHandler(&logs, nil))
			e.rt.Store = boardDown{e.db}
			e.llm.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{c.call}}, fakellm.Step{Text: "done"})
			if c.decide != nil {
				go func() { c.decide(e, <-e.asked) }()
			}
			r := e.turn(t, "go on")
			if r.Text != "done" || len(r.Calls) != 1 || r.Calls[0].Outcome != c.outcome {
				t.Fatalf("turn %+v, want it to go on past the board, call outcome %q", r, c.outcome)
			}
			line := logs.String()
			for _, want := range []string{"level=ERROR", "activity board", "agent=default", "chat=console", "tool=" + c.tool, "outcome=" + c.outcome, "disk I/O error"} {
				if !strings.Contains(line, want) {
					t.Errorf("log %q lacks %q", line, want)
				}
			}
		})
	}
}

// stopAfterCall is a real runner with a shutdown arriving while a call
// runs: the turn's context is cancelled once the call has happened.
type stopAfterCall struct {
	Runner
	stop context.CancelFunc
}

func (s stopAfterCall) Run(ctx context.Context, c catalog.Call) (catalog.Output, error) {
	out, err := s.Runner.Run(ctx, c)
	s.stop()
	return out, err
}

// TestActivityOfACallBeforeShutdownIsRecordedC2X4: a call that ran is on
// the activity board even when the turn is cancelled (a shutdown) before
// its entry is written.
func TestActivityOfACallBeforeShutdownIsRecordedC2X4(t *testing.T) {
	e := newEnv(t, "anthropic")
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	e.rt.Runners[wiki.ID] = stopAfterCall{Runner: e.rt.Runners[wiki.ID], stop: stop}
	e.llm.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{call("builtin:wiki", `{"action":"write","name":"ideas","body":"garden"}`)}}, fakellm.Step{Text: "done"})
	if _, err := e.rt.Turn(ctx, Input{Agent: "default", Chat: "console", Text: "note my garden idea"}); err == nil {
		t.Fatal("the turn went on after it was cancelled")
	}
	act, err := e.db.RecentActivity(context.Background(), 10)
	if err != nil || len(act) != 1 || act[0].Tool != "builtin:wiki" || act[0].Outcome != "ok" {
		t.Fatalf("activity %+v, %v; want the wiki write that ran", act, err)
	}
}
