package agents

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/agents/approvals"
	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/catalog/clitool"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/wiki"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// env is a runtime over real parts: SQLite, the wiki, a CLI program, the
// approvals engine, and the real SDK talking to the scripted model.
type env struct {
	rt      *Runtime
	llm     *fakellm.Server
	db      *sqlstore.DB
	clk     *clock.Fake
	asked   chan store.Approval
	engine  *approvals.Engine
	catalog *catalog.Catalog
}

func newEnv(t testing.TB, provider string) *env {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sqlstore.Open(ctx, filepath.Join(dir, "j.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.CreateAgent(ctx, store.Agent{Name: "default", Description: "Your general assistant."}); err != nil {
		t.Fatal(err)
	}
	w := wiki.New(filepath.Join(dir, "wiki"))
	if _, err := exec.LookPath("echo"); err != nil {
		t.Skip("echo not installed:", err)
	}
	echo, err := clitool.Resolve("echo", "")
	if err != nil {
		t.Fatalf("Resolve refused echo, which is on PATH: %v", err)
	}
	cat := catalog.New()
	for _, cp := range append([]catalog.Capability{w.Capability(), echo.Capability()}, catalog.AppControlTools()...) {
		if err := cat.Add(cp); err != nil {
			t.Fatal(err)
		}
	}
	f := fakellm.New(t)
	cfg := llm.Config{Provider: provider, Model: "test-model", APIKey: "test-key", MaxRetries: 2, Timeout: 10 * time.Second}
	if provider == "anthropic" {
		cfg.BaseURL = f.AnthropicURL()
	} else {
		cfg.BaseURL = f.OpenAIURL()
	}
	p, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFake(time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC))
	asked := make(chan store.Approval, 8)
	engine := approvals.New(approvals.Options{Store: db, Clock: clk, Notify: func(a store.Approval) {
		if a.State == store.ApprovalPending {
			asked <- a
		}
	}})
	rt := &Runtime{
		Catalog:   cat.View,
		Store:     db,
		Approvals: engine,
		Runners: Runners{
			wiki.ID:                 w,
			string(catalog.KindCLI): clitool.Runner{Tools: map[string]clitool.Tool{"echo": echo}},
		},
		Model: func(string) (Model, error) { return Model{Provider: p}, nil },
		Clock: clk,
	}
	return &env{rt: rt, llm: f, db: db, clk: clk, asked: asked, engine: engine, catalog: cat}
}

func (e *env) turn(t *testing.T, text string) Result {
	t.Helper()
	r, err := e.rt.Turn(context.Background(), Input{Agent: "default", Chat: "console", Text: text})
	if err != nil {
		t.Fatalf("turn %q: %v", text, err)
	}
	return r
}

func call(name, input string) fakellm.ToolCall {
	return fakellm.ToolCall{Name: llm.WireName(name), Input: input}
}

// lastResults returns the tool results the model got in its last request.
func (e *env) lastResults(t *testing.T) []string {
	t.Helper()
	reqs := e.llm.Requests()
	msgs := reqs[len(reqs)-1].Messages
	var out []string
	for _, m := range msgs {
		out = append(out, m.ToolResults...)
	}
	return out
}

func TestPlainAnswerA2(t *testing.T) {
	for _, p := range []string{"anthropic", "openai"} {
		t.Run(p, func(t *testing.T) {
			e := newEnv(t, p)
			e.llm.Push(fakellm.Step{Text: "Hello! How can I help?"})
			r := e.turn(t, "hi there")
			if r.Text != "Hello! How can I help?" || r.Steps != 1 {
				t.Errorf("result %+v", r)
			}
			h, _ := e.db.History(context.Background(), "console", 10)
			if len(h) != 2 || h[0].Role != "user" || h[1].Role != "assistant" {
				t.Errorf("history %d messages", len(h))
			}
			req := e.llm.Requests()[0]
			if !strings.Contains(req.System, "personal assistant") || len(req.Tools) != 2 {
				t.Errorf("request system %q tools %v", req.System, req.Tools)
			}
			for _, name := range req.Tools {
				if strings.Contains(name, "spawn") || strings.Contains(name, "control") {
					t.Errorf("never-list tool offered: %s", name)
				}
			}
		})
	}
}

// TestMonitorAndSafeC2: a monitor call runs and goes on the activity
// board; a safe call runs and does not.
func TestMonitorAndSafeC2(t *testing.T) {
	for _, p := range []string{"anthropic", "openai"} {
		t.Run(p, func(t *testing.T) {
			e := newEnv(t, p)
			e.llm.Push(
				fakellm.Step{ToolCalls: []fakellm.ToolCall{call("builtin:wiki", `{"action":"write","name":"ideas","body":"garden"}`)}},
				fakellm.Step{ToolCalls: []fakellm.ToolCall{call("builtin:wiki", `{"action":"read","name":"ideas"}`)}},
				fakellm.Step{Text: "Saved and checked."},
			)
			r := e.turn(t, "note my garden idea")
			if r.Text != "Saved and checked." || len(r.Calls) != 2 || r.Calls[0].Outcome != "ok" || r.Calls[0].Tier != catalog.TierMonitor || r.Calls[1].Tier != catalog.TierSafe {
				t.Fatalf("result %+v", r)
			}
			if res := e.lastResults(t); len(res) < 2 || !strings.Contains(res[len(res)-1], "garden") {
				t.Errorf("tool results sent back: %q", res)
			}
			act, _ := e.db.RecentActivity(context.Background(), 10)
			if len(act) != 1 || act[0].Tool != "builtin:wiki" || act[0].Outcome != "ok" || !strings.Contains(act[0].Args, "write") {
				t.Errorf("activity %+v", act)
			}
		})
	}
}

// TestAskApproveDenyExpireC2: an ask-tier call waits for the owner:
// approved it runs, denied or expired the model is told.
func TestAskApproveDenyExpireC2(t *testing.T) {
	cases := []struct {
		name   string
		decide func(e *env, a store.Approval)
		want   string
	}{
		{"approve", func(e *env, a store.Approval) { e.engine.Decide(context.Background(), a.ID, "console", true, false) }, "hello world"},
		{"deny", func(e *env, a store.Approval) { e.engine.Decide(context.Background(), a.ID, "console", false, false) }, "denied"},
		{"expire", func(e *env, a store.Approval) { e.clk.Advance(11 * time.Minute) }, "did not answer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, "anthropic")
			e.llm.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{call("cli:echo", `{"args":["hello","world"]}`)}}, fakellm.Step{Text: "done"})
			go func() {
				a := <-e.asked
				if a.Tool != "cli:echo" || !strings.Contains(a.Summary, "hello") {
					t.Errorf("approval request %+v", a)
				}
				c.decide(e, a)
			}()
			r := e.turn(t, "say hello world")
			if res := e.lastResults(t); len(res) != 1 || !strings.Contains(res[0], c.want) {
				t.Errorf("tool result %q, want %q", res, c.want)
			}
			if r.Text != "done" {
				t.Errorf("result %+v", r)
			}
			act, _ := e.db.RecentActivity(context.Background(), 10)
			if len(act) != 1 || act[0].Tier != "ask" {
				t.Errorf("activity %+v", act)
			}
		})
	}
}

// TestRefusalsC4: a tool not offered, a never-list tool, broken JSON and
// arguments against the schema are refused before anything runs, and the
// model is told why.
func TestRefusalsC4(t *testing.T) {
	e := newEnv(t, "anthropic")
	e.llm.Push(
		fakellm.Step{ToolCalls: []fakellm.ToolCall{
			{Name: "mcp__github__delete_repository", Input: `{}`},
			{Name: "builtin__spawn_worker", Input: `{}`},
			call("builtin:wiki", `{"action":`),
			call("builtin:wiki", `{"action":"write","name":"x","colour":"red"}`),
		}},
		fakellm.Step{Text: "sorry"},
	)
	r := e.turn(t, "do dangerous things")
	if len(r.Calls) != 4 {
		t.Fatalf("calls %+v", r.Calls)
	}
	wants := []string{"not offered", "never available", "not valid JSON", "do not match its schema"}
	for i, w := range wants {
		if !strings.Contains(r.Calls[i].Outcome, w) {
			t.Errorf("call %d outcome %q, want %q", i, r.Calls[i].Outcome, w)
		}
	}
	if notes, _ := wiki.New(filepath.Join(t.TempDir(), "none")).List(context.Background()); len(notes) != 0 {
		t.Error("a refused call wrote")
	}
	if act, _ := e.db.RecentActivity(context.Background(), 10); len(act) != 0 {
		t.Errorf("refused calls on the board: %+v", act)
	}
}

// TestProviderRetryAndDownA3: a 429 is retried by the SDK; a model that
// stays down is a readable error, and the message stays in the history.
func TestProviderRetryAndDownA3(t *testing.T) {
	for _, p := range []string{"anthropic", "openai"} {
		t.Run(p, func(t *testing.T) {
			e := newEnv(t, p)
			e.llm.Push(fakellm.Step{Status: 429}, fakellm.Step{Text: "after the retry"})
			if r := e.turn(t, "hello"); r.Text != "after the retry" {
				t.Errorf("after 429: %+v", r)
			}
			e.llm.Push(fakellm.Step{Status: 500}, fakellm.Step{Status: 500}, fakellm.Step{Status: 500})
			_, err := e.rt.Turn(context.Background(), Input{Agent: "default", Chat: "console", Text: "are you there?"})
			if err == nil || !strings.Contains(err.Error(), "cannot be reached") {
				t.Errorf("model down: %v", err)
			}
			h, _ := e.db.History(context.Background(), "console", 10)
			var last llm.Message
			json.Unmarshal(h[len(h)-1].Content, &last)
			if last.Text != "are you there?" {
				t.Errorf("the failed turn's message was not kept: %+v", last)
			}
		})
	}
}

// TestPrefixStableA3: the system prompt and the prefix tools are the same
// bytes turn after turn, and marked for Anthropic's cache.
func TestPrefixStableA3(t *testing.T) {
	e := newEnv(t, "anthropic")
	e.llm.Push(fakellm.Step{Text: "one"}, fakellm.Step{Text: "two"})
	e.turn(t, "first message about the garden")
	e.turn(t, "second, quite different message")
	reqs := e.llm.Requests()
	type body struct {
		System json.RawMessage   `json:"system"`
		Tools  []json.RawMessage `json:"tools"`
	}
	var a, b body
	json.Unmarshal(reqs[0].Body, &a)
	json.Unmarshal(reqs[1].Body, &b)
	if string(a.System) != string(b.System) || len(a.Tools) == 0 || len(a.Tools) != len(b.Tools) {
		t.Fatalf("system or tools differ:\n%s\n%s", a.System, b.System)
	}
	for i := range a.Tools {
		if string(a.Tools[i]) != string(b.Tools[i]) {
			t.Errorf("tool %d differs", i)
		}
	}
	if !reqs[0].CacheControl || !strings.Contains(string(a.Tools[len(a.Tools)-1]), "cache_control") {
		t.Error("the prefix is not marked for the cache")
	}
}

// BenchmarkTurnOverhead measures the runtime's own cost per turn with the
// model answering at once over loopback: SQLite writes, resolution,
// history, the SDK's request building.
func BenchmarkTurnOverhead(b *testing.B) {
	e := newEnv(b, "anthropic")
	e.rt.HistoryTokens = 2000
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		e.llm.Push(fakellm.Step{Text: "ok"})
		// A conversation of about ten messages: its own history, not one
		// that grows with b.N.
		if _, err := e.rt.Turn(ctx, Input{Agent: "default", Chat: "bench-" + strconv.Itoa(i/5), Text: "hello"}); err != nil {
			b.Fatal(err)
		}
	}
}

// restartWhileAsking runs a turn whose model calls cli:echo with input,
// stops the service while the call waits for approval, and restarts the
// approvals over the same store: it returns the request resumed, and the
// new engine's orphaned decisions and new requests.
func (e *env) restartWhileAsking(t *testing.T, in Input, input string) (store.Approval, chan store.Approval, chan store.Approval) {
	t.Helper()
	e.llm.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{call("cli:echo", input)}})
	ctx, stop := context.WithCancel(context.Background())
	go func() { <-e.asked; stop() }() // the service goes down while it waits
	if _, err := e.rt.Turn(ctx, in); err == nil {
		t.Fatal("the interrupted turn reported success")
	}
	// Restart: a new engine over the same store resumes the request.
	orphans := make(chan store.Approval, 1)
	asked := make(chan store.Approval, 4)
	e.engine = approvals.New(approvals.Options{Store: e.db, Clock: e.clk, Orphan: func(a store.Approval) { orphans <- a },
		Notify: func(a store.Approval) {
			if a.State == store.ApprovalPending {
				asked <- a
			}
		}})
	e.rt.Approvals = e.engine
	pending, err := e.engine.Resume(context.Background())
	if err != nil || len(pending) != 1 || pending[0].Tool != "cli:echo" {
		t.Fatalf("after restart: %+v %v", pending, err)
	}
	return pending[0], orphans, asked
}

// TestRestartWithPendingApprovalC2: the service stops while a call waits
// for approval; after the restart the request is still pending, the
// owner approves it, and the turn goes on from where it was: the approved
// call runs once, whatever the spacing and key order the model used, and
// the owner is not asked a second time.
func TestRestartWithPendingApprovalC2(t *testing.T) {
	for _, input := range []string{
		`{"args":["after","restart"]}`,
		`{ "args": [ "after", "restart" ] }`,
		`{"stdin": "", "args":["after","restart"]}`,
	} {
		t.Run(input, func(t *testing.T) {
			e := newEnv(t, "anthropic")
			pending, orphans, asked := e.restartWhileAsking(t, Input{Agent: "default", Chat: "console", Text: "echo after restart"}, input)
			if _, err := e.engine.Decide(context.Background(), pending.ID, "console", true, false); err != nil {
				t.Fatal(err)
			}
			a := <-orphans
			e.llm.Push(fakellm.Step{Text: "It said: after restart."})
			cctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				if again, ok := <-asked; ok {
					t.Errorf("the owner was asked again after approving: %+v", again)
					cancel()
				}
			}()
			r, err := e.rt.Continue(cctx, a)
			close(asked)
			if err != nil || r.Text != "It said: after restart." {
				t.Fatalf("continue: %+v %v", r, err)
			}
			if res := e.lastResults(t); len(res) != 1 || !strings.Contains(res[0], "after restart") {
				t.Errorf("the approved call's result: %q", res)
			}
		})
	}
}

// TestRetryAfterADecisionPressedFirstC2: after a restart the owner presses
// approve before the turn run again has looked at the chat (a start under
// load): the decision, handed on to continue the turn, carries it as the
// pending request did, so the retried turn asks nothing, and the decision
// then runs the call once.
func TestRetryAfterADecisionPressedFirstC2(t *testing.T) {
	e := newEnv(t, "anthropic")
	in := Input{Agent: "default", Chat: "console", Text: "echo pressed early"}
	pending, orphans, asked := e.restartWhileAsking(t, in, `{"args":["pressed","early"]}`)
	if _, err := e.engine.Decide(context.Background(), pending.ID, "console", true, false); err != nil {
		t.Fatal(err)
	}
	a := <-orphans
	// The message comes back from the inbox only now. A turn that asks
	// again is stopped, so that the test fails instead of waiting.
	in.Retry = true
	rctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case again := <-asked:
			t.Errorf("the retried turn asked again: %+v", again)
			cancel()
		case <-rctx.Done():
		}
	}()
	_, err := e.rt.Turn(rctx, in)
	cancel()
	if !errors.Is(err, ErrAwaitingApproval) || errors.Is(err, context.Canceled) {
		t.Fatalf("the retried turn: %v, want it left to the decision", err)
	}
	e.llm.Push(fakellm.Step{Text: "It said: pressed early."})
	r, err := e.rt.Continue(context.Background(), a)
	if err != nil || r.Text != "It said: pressed early." {
		t.Fatalf("continue: %+v %v", r, err)
	}
	close(asked)
	for again := range asked {
		t.Errorf("the owner was asked again: %+v", again)
	}
	if res := e.lastResults(t); len(res) != 1 || !strings.Contains(res[0], "pressed early") {
		t.Errorf("the approved call's result: %q", res)
	}
	if left, err := e.engine.CarryingIn(context.Background(), "console"); err != nil || len(left) != 0 {
		t.Errorf("after the turn took its decision up, still carrying: %+v %v", left, err)
	}
}

// BenchmarkIdleConversationMemory reports the heap a conversation keeps
// once its turn is over: the runtime holds nothing per chat (history is in
// the store), so it should be near zero.
func BenchmarkIdleConversationMemory(b *testing.B) {
	e := newEnv(b, "anthropic")
	// The scripted server keeps every request it saw; a provider that
	// answers in-process keeps nothing, so only the runtime and the store
	// are measured.
	e.rt.Model = func(string) (Model, error) { return Model{Provider: instant{}}, nil }
	ctx := context.Background()
	const chats = 200
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	for b.Loop() {
		for i := range chats {
			if _, err := e.rt.Turn(ctx, Input{Agent: "default", Chat: "idle-" + strconv.Itoa(i), Text: "hello"}); err != nil {
				b.Fatal(err)
			}
		}
	}
	goruntime.GC()
	goruntime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(chats), "heap-bytes/idle-chat")
}

// instant is a model that answers at once without a network.
type instant struct{}

func (instant) Complete(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{Text: "ok"}, nil
}
func (instant) Name() string { return "instant" }
