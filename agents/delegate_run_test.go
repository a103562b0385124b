package agents

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jarvisbot/jarvisbot/agents/approvals"
	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/store"
)

// scripted is a Delegate whose turn is the test's function: the real CLIs
// are the claude and codex packages' to drive; here only the seam matters.
type scripted struct {
	mu   sync.Mutex
	seen []DelegateTurn
	run  func(ctx context.Context, t DelegateTurn) (DelegateResult, error)
}

func (s *scripted) Turn(ctx context.Context, t DelegateTurn) (DelegateResult, error) {
	s.mu.Lock()
	s.seen = append(s.seen, t)
	s.mu.Unlock()
	return s.run(ctx, t)
}

func (s *scripted) last(t *testing.T) DelegateTurn {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.seen) == 0 {
		t.Fatal("the delegate was never called")
	}
	return s.seen[len(s.seen)-1]
}

// delegateTo makes every agent of e run on d, keeping sessions in the store.
func delegateTo(e *env, d Delegate) {
	e.rt.Model = func(string) (Model, error) { return Model{Delegate: d}, nil }
	e.rt.Sessions = e.db
}

func answer(text string) func(context.Context, DelegateTurn) (DelegateResult, error) {
	return func(context.Context, DelegateTurn) (DelegateResult, error) { return DelegateResult{Text: text}, nil }
}

func wireNames(tools []llm.Tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name
	}
	return out
}

// TestDelegateGetsTheToolsTheLoopWouldSendC3M5: a delegate is offered
// exactly the tools an API model gets for the same message: the gate
// applied (tools of servers the message does not route to are absent) and
// nothing of the never-list; each with its description and schema.
func TestDelegateGetsTheToolsTheLoopWouldSendC3M5(t *testing.T) {
	for _, c := range []struct{ msg, server string }{
		{"post a short note in the team slack channel saying lunch is at noon", "slack"},
		{vague, ""},
	} {
		msg := c.msg
		t.Run(msg, func(t *testing.T) {
			e, _ := recoverEnv(t, store.Agent{Name: "default"})
			e.llm.Push(fakellm.Step{Text: "ok"})
			e.turn(t, msg)
			want := e.llm.Requests()[0].Tools
			d := &scripted{run: answer("done")}
			delegateTo(e, d)
			if _, err := e.rt.Turn(context.Background(), Input{Agent: "default", Chat: "other", Text: msg}); err != nil {
				t.Fatal(err)
			}
			got := d.last(t).Tools
			if !slices.Equal(wireNames(got), want) {
				t.Fatalf("delegate tools %v\nloop tools     %v", wireNames(got), want)
			}
			all := 0
			for _, cp := range e.catalog.View().Capabilities() {
				if cp.Connected {
					all++
				}
			}
			if len(got) >= all {
				t.Errorf("the gate offered all %d tools", all)
			}
			mcp := 0
			for _, tl := range got {
				if strings.HasPrefix(tl.Name, "mcp__") {
					mcp++
					if c.server == "" || !strings.Contains(tl.Name, c.server) {
						t.Errorf("%s offered for %q, which does not route to it", tl.Name, msg)
					}
				}
			}
			if c.server != "" && mcp == 0 {
				t.Errorf("no tool of %s offered for %q", c.server, msg)
			}
			for _, tl := range got {
				if strings.Contains(tl.Name, "spawn") {
					t.Errorf("never-list tool offered to the delegate: %s", tl.Name)
				}
				if tl.Description == "" || len(tl.Schema) == 0 {
					t.Errorf("tool %s without description or schema: %+v", tl.Name, tl)
				}
			}
		})
	}
}

// TestDelegateCallsRunThroughTheChecksC2M5: a delegate's calls take the
// loop's path: a monitor call runs and is on the activity board, a
// never-list or unoffered tool is refused without running, and the calls
// are the turn's records.
func TestDelegateCallsRunThroughTheChecksC2M5(t *testing.T) {
	e := newEnv(t, "anthropic")
	var results []llm.ToolResult
	d := &scripted{run: func(ctx context.Context, dt DelegateTurn) (DelegateResult, error) {
		results = append(results,
			dt.Call(ctx, llm.WireName("builtin:wiki"), json.RawMessage(`{"action":"write","name":"ideas","body":"garden"}`)),
			dt.Call(ctx, llm.WireName("builtin:wiki"), json.RawMessage(`{"action":"read","name":"ideas"}`)),
			dt.Call(ctx, "builtin__spawn_worker", json.RawMessage(`{}`)),
			dt.Call(ctx, llm.WireName("builtin:wiki"), json.RawMessage(`{"action":"write","name":"x","colour":"red"}`)),
		)
		return DelegateResult{Text: "Saved."}, nil
	}}
	delegateTo(e, d)
	r := e.turn(t, "note my garden idea")
	if r.Text != "Saved." || len(r.Calls) != 4 {
		t.Fatalf("result %+v", r)
	}
	if results[0].IsError || results[1].IsError || !strings.Contains(results[1].Content, "garden") {
		t.Errorf("wiki results %+v", results[:2])
	}
	if !results[2].IsError || !strings.Contains(r.Calls[2].Outcome, "never available") {
		t.Errorf("never-list call: %+v %+v", results[2], r.Calls[2])
	}
	if !results[3].IsError || !strings.Contains(r.Calls[3].Outcome, "do not match its schema") {
		t.Errorf("call against the schema: %+v %+v", results[3], r.Calls[3])
	}
	if r.Calls[0].Tool != "builtin:wiki" || r.Calls[0].Tier != catalog.TierMonitor || r.Calls[1].Tier != catalog.TierSafe {
		t.Errorf("records %+v", r.Calls)
	}
	act, _ := e.db.RecentActivity(context.Background(), 10)
	if len(act) != 1 || act[0].Tool != "builtin:wiki" || !strings.Contains(act[0].Args, "write") {
		t.Errorf("activity %+v", act)
	}
}

// TestDelegateAskTierWaitsForTheOwnerC2M5: an ask-tier call from a
// delegate waits for the owner's buttons and runs only once approved.
func TestDelegateAskTierWaitsForTheOwnerC2M5(t *testing.T) {
	for _, approve := range []bool{true, false} {
		t.Run(map[bool]string{true: "approve", false: "deny"}[approve], func(t *testing.T) {
			e := newEnv(t, "anthropic")
			var res llm.ToolResult
			d := &scripted{run: func(ctx context.Context, dt DelegateTurn) (DelegateResult, error) {
				res = dt.Call(ctx, llm.WireName("cli:echo"), json.RawMessage(`{"args":["hello","world"]}`))
				return DelegateResult{Text: "done"}, nil
			}}
			delegateTo(e, d)
			go func() {
				a := <-e.asked
				if a.Tool != "cli:echo" || a.Chat != "console" {
					t.Errorf("approval request %+v", a)
				}
				e.engine.Decide(context.Background(), a.ID, "console", approve, false)
			}()
			r := e.turn(t, "say hello world")
			if approve && (res.IsError || !strings.Contains(res.Content, "hello world")) || !approve && (!res.IsError || !strings.Contains(res.Content, "denied")) {
				t.Errorf("result of the ask-tier call: %+v", res)
			}
			want := map[bool]string{true: "ok", false: "denied"}[approve]
			if len(r.Calls) != 1 || r.Calls[0].Tier != catalog.TierAsk || r.Calls[0].Outcome != want {
				t.Errorf("records %+v", r.Calls)
			}
		})
	}
}

// TestDelegateWaitingAtShutdownAwaitsApprovalC2M5: a turn stopped while a
// delegate's call waits for the owner is ErrAwaitingApproval, not a
// failure to retry.
func TestDelegateWaitingAtShutdownAwaitsApprovalC2M5(t *testing.T) {
	e := newEnv(t, "anthropic")
	d := &scripted{run: func(ctx context.Context, dt DelegateTurn) (DelegateResult, error) {
		dt.Call(ctx, llm.WireName("cli:echo"), json.RawMessage(`{"args":["later"]}`))
		return DelegateResult{}, ctx.Err()
	}}
	delegateTo(e, d)
	ctx, stop := context.WithCancel(context.Background())
	go func() { <-e.asked; stop() }()
	_, err := e.rt.Turn(ctx, Input{Agent: "default", Chat: "console", Text: "echo later"})
	if !errors.Is(err, ErrAwaitingApproval) {
		t.Fatalf("turn stopped while waiting: %v", err)
	}
}

// TestDelegateOwnToolApprovalPerAgentC2M5: a delegate's own tool (the
// CLI's shell) is asked for through the approvals engine; "always" is
// remembered for that agent's tool only, and the decisions are on the
// activity board.
func TestDelegateOwnToolApprovalPerAgentC2M5(t *testing.T) {
	e := newEnv(t, "anthropic")
	ctx := context.Background()
	if err := e.db.CreateAgent(ctx, store.Agent{Name: "coder", Description: "Writes code."}); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		ok  bool
		err error
	}
	got := make(chan answer, 1)
	d := &scripted{run: func(ctx context.Context, dt DelegateTurn) (DelegateResult, error) {
		ok, err := dt.Approve(ctx, "Bash", json.RawMessage(`{"command":"ls"}`))
		got <- answer{ok, err}
		return DelegateResult{Text: "listed"}, nil
	}}
	delegateTo(e, d)
	turn := func(agent string) {
		t.Helper()
		if _, err := e.rt.Turn(ctx, Input{Agent: agent, Chat: "console", Text: "list the files"}); err != nil {
			t.Fatal(err)
		}
	}
	// First time: asked; the owner approves with "always".
	go func() {
		a := <-e.asked
		if a.Tool != DelegateToolID("coder", "Bash") || !strings.Contains(a.Summary, "Bash") || !strings.Contains(a.Summary, "ls") {
			t.Errorf("approval request %+v", a)
		}
		e.engine.Decide(ctx, a.ID, "console", true, true)
	}()
	turn("coder")
	if a := <-got; !a.ok || a.err != nil {
		t.Fatalf("approved with always: %+v", a)
	}
	// Again for coder: granted without asking (a request would block here).
	turn("coder")
	if a := <-got; !a.ok || a.err != nil {
		t.Fatalf("with the grant: %+v", a)
	}
	select {
	case a := <-e.asked:
		t.Fatalf("asked again despite always: %+v", a)
	default:
	}
	// Another agent's CLI is not covered by coder's grant: it is asked, and denied.
	go func() {
		a := <-e.asked
		if a.Tool != DelegateToolID("default", "Bash") {
			t.Errorf("approval request %+v", a)
		}
		e.engine.Decide(ctx, a.ID, "console", false, false)
	}()
	turn("default")
	if a := <-got; a.ok || a.err != nil {
		t.Fatalf("another agent, denied: %+v", a)
	}
	act, _ := e.db.RecentActivity(ctx, 10)
	var outcomes []string
	for _, a := range act {
		outcomes = append(outcomes, a.Tool+" "+a.Outcome)
	}
	slices.Sort(outcomes)
	want := []string{"delegate:coder/Bash approved", "delegate:coder/Bash approved", "delegate:default/Bash denied"}
	if !slices.Equal(outcomes, want) {
		t.Errorf("activity %q, want %q", outcomes, want)
	}
}

// TestDelegateTurnInHistoryAndSessionsM5: the owner's message and the
// delegate's answer are its agent's history in the chat; the delegate is
// given that history before its message, not another agent's turns in
// the same chat (each agent keeps its own conversation there), and the
// session it keeps is kept per agent and chat.
func TestDelegateTurnInHistoryAndSessionsM5(t *testing.T) {
	e := newEnv(t, "anthropic")
	ctx := context.Background()
	if err := e.db.CreateAgent(ctx, store.Agent{Name: "coder", Description: "Writes code."}); err != nil {
		t.Fatal(err)
	}
	api := e.rt.Model
	d := &scripted{run: func(ctx context.Context, dt DelegateTurn) (DelegateResult, error) {
		if err := dt.SetSession(ctx, "s-"+dt.Agent+"-"+dt.Chat+"-"+dt.Text); err != nil {
			return DelegateResult{}, err
		}
		return DelegateResult{Text: "answer to " + dt.Text}, nil
	}}
	delegateTo(e, d)
	for _, in := range []Input{
		{Agent: "coder", Chat: "console", Text: "one"},
		{Agent: "coder", Chat: "telegram:1", Text: "two"},
		{Agent: "default", Chat: "console", Text: "three"},
		{Agent: "coder", Chat: "console", Text: "four"},
	} {
		r, err := e.rt.Turn(ctx, in)
		if err != nil || r.Text != "answer to "+in.Text {
			t.Fatalf("turn %+v: %+v %v", in, r, err)
		}
	}
	last := d.last(t)
	if last.Session != "s-coder-console-one" || last.Text != "four" {
		t.Errorf("the fourth turn resumed %q (text %q)", last.Session, last.Text)
	}
	var hist []string
	for _, m := range last.History {
		hist = append(hist, m.Role+":"+m.Text)
	}
	if want := []string{"user:one", "assistant:answer to one"}; !slices.Equal(hist, want) {
		t.Errorf("history given %q, want %q", hist, want)
	}
	if d.seen[1].Session != "" || d.seen[2].Session != "" {
		t.Errorf("a session leaked to another chat or agent: %q %q", d.seen[1].Session, d.seen[2].Session)
	}
	if s, _ := e.db.DelegateSession(ctx, "coder", "console"); s != "s-coder-console-four" {
		t.Errorf("kept session %q", s)
	}
	// An API-model turn afterwards sees the delegate's conversation.
	e.rt.Model = api
	e.llm.Push(fakellm.Step{Text: "ok"})
	e.turnAs(t, "coder", "five")
	var seen []string
	for _, m := range e.llm.Requests()[0].Messages {
		seen = append(seen, m.Text)
	}
	if s := strings.Join(seen, "|"); !strings.Contains(s, "four") || !strings.Contains(s, "answer to four") || !strings.Contains(s, "five") {
		t.Errorf("the API model's turn got %q", s)
	}
}

// TestDelegateConcurrentCallsM5: a CLI makes calls in parallel; each runs
// and is recorded once (run with -race).
func TestDelegateConcurrentCallsM5(t *testing.T) {
	e := newEnv(t, "anthropic")
	const n = 8
	d := &scripted{run: func(ctx context.Context, dt DelegateTurn) (DelegateResult, error) {
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				if res := dt.Call(ctx, llm.WireName("builtin:wiki"), json.RawMessage(`{"action":"write","name":"n","body":"x"}`)); res.IsError {
					t.Errorf("call: %+v", res)
				}
			})
		}
		wg.Wait()
		return DelegateResult{Text: "written"}, nil
	}}
	delegateTo(e, d)
	if r := e.turn(t, "write it down"); len(r.Calls) != n {
		t.Errorf("records %+v", r.Calls)
	}
	if act, _ := e.db.RecentActivity(context.Background(), 20); len(act) != n {
		t.Errorf("activity has %d entries, want %d", len(act), n)
	}
}

// TestDelegateDecisionAfterRestartM5C2: the service stops while a
// delegate's turn waits for the owner; after the restart the owner decides,
// and the turn goes on on the delegate: an approved jarvisbot tool runs once
// and the delegate is told what came of it; a decision on the CLI's own
// tool runs nothing (the CLI that asked is gone) and the delegate is told.
func TestDelegateDecisionAfterRestartM5C2(t *testing.T) {
	cases := []struct {
		name string
		ask  func(ctx context.Context, dt DelegateTurn)
		tool string
		want []string // in the text the delegate gets after the decision
	}{
		{"jarvisbot tool", func(ctx context.Context, dt DelegateTurn) {
			dt.Call(ctx, llm.WireName("cli:echo"), json.RawMessage(`{"args":["after","restart"]}`))
		}, "cli:echo", []string{"after restart", "cli:echo"}},
		{"own tool", func(ctx context.Context, dt DelegateTurn) {
			dt.Approve(ctx, "Bash", json.RawMessage(`{"command":"make"}`))
		}, DelegateToolID("default", "Bash"), []string{"Bash", "nothing ran", "approved"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, "anthropic")
			first := true
			d := &scripted{run: func(ctx context.Context, dt DelegateTurn) (DelegateResult, error) {
				if first {
					first = false
					c.ask(ctx, dt)
					return DelegateResult{}, ctx.Err()
				}
				return DelegateResult{Text: "told: " + dt.Text}, nil
			}}
			delegateTo(e, d)
			ctx, stop := context.WithCancel(context.Background())
			go func() { <-e.asked; stop() }()
			if _, err := e.rt.Turn(ctx, Input{Agent: "default", Chat: "console", Text: "build it"}); !errors.Is(err, ErrAwaitingApproval) {
				t.Fatalf("the interrupted turn: %v", err)
			}
			orphans := make(chan store.Approval, 1)
			e.engine = approvals.New(approvals.Options{Store: e.db, Clock: e.clk, Orphan: func(a store.Approval) { orphans <- a }})
			e.rt.Approvals = e.engine
			pending, err := e.engine.Resume(context.Background())
			if err != nil || len(pending) != 1 || pending[0].Tool != c.tool {
				t.Fatalf("after restart: %+v %v", pending, err)
			}
			if _, err := e.engine.Decide(context.Background(), pending[0].ID, "console", true, false); err != nil {
				t.Fatal(err)
			}
			r, err := e.rt.Continue(context.Background(), <-orphans)
			if err != nil {
				t.Fatalf("continue: %v", err)
			}
			told := d.last(t).Text
			for _, w := range c.want {
				if !strings.Contains(told, w) {
					t.Errorf("the delegate was told %q, want %q in it", told, w)
				}
			}
			if r.Text != "told: "+told {
				t.Errorf("result %+v", r)
			}
		})
	}
}

// TestDelegateFailureIsTheTurnsErrorM5: a delegate that fails (a CLI
// that crashed or is missing) fails the turn with a message that names the
// agent and says what to do; the owner's message stays in the history, and
// no answer is stored.
func TestDelegateFailureIsTheTurnsErrorM5(t *testing.T) {
	e := newEnv(t, "anthropic")
	delegateTo(e, &scripted{run: func(context.Context, DelegateTurn) (DelegateResult, error) {
		return DelegateResult{}, errors.New("claude exited with status 1")
	}})
	_, err := e.rt.Turn(context.Background(), Input{Agent: "default", Chat: "console", Text: "are you there?"})
	if err == nil || !strings.Contains(err.Error(), "agent default's CLI could not answer") || !strings.Contains(err.Error(), "exited with status 1") || errors.Is(err, ErrAwaitingApproval) {
		t.Fatalf("turn error: %v", err)
	}
	h, _ := e.db.History(context.Background(), "console", 10)
	var last llm.Message
	if len(h) != 1 || json.Unmarshal(h[0].Content, &last) != nil || last.Text != "are you there?" {
		t.Errorf("history after the failure: %d messages, last %+v", len(h), last)
	}
}

// TestDelegateReadsTheDocumentCH4: a coding CLI gets a document's text in
// its prompt, before the owner's caption.
func TestDelegateReadsTheDocumentCH4(t *testing.T) {
	st := &turnState{in: Input{Chat: "telegram:1", Text: "summarise this"}, req: llm.Request{Messages: []llm.Message{
		{Role: llm.RoleUser, Text: "[file: lease.pdf, 3 KB]\nsummarise this", Attachments: []llm.Attachment{
			{Kind: llm.AttachDocument, Name: "lease.pdf", Text: "The rent is 950 euros."}}},
	}}}
	dt, _ := (&Runtime{}).delegateTurn(context.Background(), st)
	if want := "<file name=\"lease.pdf\">\nThe rent is 950 euros.\n</file>\n\n[file: lease.pdf, 3 KB]\nsummarise this"; dt.Text != want {
		t.Errorf("the CLI's prompt text is %q, want %q", dt.Text, want)
	}
}
