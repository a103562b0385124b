package llm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
)

// told collects what a Failover tells the owner.
type told struct {
	mu    sync.Mutex
	lines []string
}

func (t *told) tell(_ context.Context, text string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, text)
}

func (t *told) all() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.lines...)
}

// testChain is an Anthropic primary on one scripted model and an
// OpenAI-compatible fallback on another, on a pinned clock, the primary
// given up after timeout.
func testChain(t *testing.T, timeout time.Duration) (Provider, *Failover, *fakellm.Server, *fakellm.Server, *told, *clock.Fake) {
	t.Helper()
	primary, fallback := fakellm.New(t), fakellm.New(t)
	clk := clock.NewFake(time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC))
	var owner told
	f := &Failover{Clock: clk, Tell: owner.tell}
	p, err := f.Build(Choice{
		Config: Config{Provider: "anthropic", Model: "claude-x", APIKey: "key-a", BaseURL: primary.AnthropicURL(), Timeout: timeout},
		Fallbacks: []Link{{Config: Config{Provider: "openai", Model: "gpt-x", APIKey: "key-o", BaseURL: fallback.OpenAIURL(), Timeout: time.Minute},
			MaxTokens: 300}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return p, f, primary, fallback, &owner, clk
}

// chainRequest is a turn with a stable prefix: a system prompt and a
// cached tool.
func chainRequest(text string) Request {
	return Request{System: "stable instructions", Tools: []Tool{{Name: "wiki", Description: "notes"}}, CachedTools: 1,
		MaxTokens: 1000, Messages: []Message{{Role: RoleUser, Text: text}}}
}

// TestFailoverAndBackA3: a primary answering 529, then 503, then not at
// all hands each turn to the fallback, which serves the turns between
// without the primary being asked; the primary is tried again once its
// interval has passed on the clock and takes over again when it answers.
// The owner is told twice in all; every answer says which link gave it.
func TestFailoverAndBackA3(t *testing.T) {
	p, f, primary, fallback, owner, clk := testChain(t, 300*time.Millisecond)
	for i, turn := range []struct {
		name     string
		advance  time.Duration  // the clock moves before the turn
		primary  []fakellm.Step // the primary's answers in this turn
		fallback []fakellm.Step // the fallback's
		from     [2]string      // who answered: provider, model
		asked    [2]int         // requests each got in this turn
		told     int            // lines told so far
	}{
		{"overloaded: the fallback takes over", 0, []fakellm.Step{{Status: 529, Text: "Overloaded"}, {Status: 529}},
			[]fakellm.Step{{Text: "fallback 1"}}, [2]string{"openai", "gpt-x"}, [2]int{2, 1}, 1},
		{"the fallback serves without asking the primary", 4 * time.Minute, nil,
			[]fakellm.Step{{Text: "fallback 2"}}, [2]string{"openai", "gpt-x"}, [2]int{0, 1}, 1},
		{"the primary tried again: down", time.Minute, []fakellm.Step{{Status: 503}, {Status: 503}},
			[]fakellm.Step{{Text: "fallback 3"}}, [2]string{"openai", "gpt-x"}, [2]int{2, 1}, 1},
		{"the primary tried again: out of time", DefaultRetryPrimary, []fakellm.Step{{Hang: true}},
			[]fakellm.Step{{Text: "fallback 4"}}, [2]string{"openai", "gpt-x"}, [2]int{1, 1}, 1},
		{"not due yet", DefaultRetryPrimary - time.Second, nil,
			[]fakellm.Step{{Text: "fallback 5"}}, [2]string{"openai", "gpt-x"}, [2]int{0, 1}, 1},
		{"the primary is back", time.Second, []fakellm.Step{{Text: "primary 6"}},
			nil, [2]string{"anthropic", "claude-x"}, [2]int{1, 0}, 2},
		{"the primary serves", 0, []fakellm.Step{{Text: "primary 7"}},
			nil, [2]string{"anthropic", "claude-x"}, [2]int{1, 0}, 2},
	} {
		clk.Advance(turn.advance)
		before := [2]int{len(primary.Requests()), len(fallback.Requests())}
		primary.Push(turn.primary...)
		fallback.Push(turn.fallback...)
		res, err := p.Complete(context.Background(), chainRequest("turn"))
		if err != nil {
			t.Fatalf("turn %d (%s): %v", i+1, turn.name, err)
		}
		if got := [2]string{res.Provider, res.Model}; got != turn.from {
			t.Errorf("turn %d (%s): answered by %v, want %v", i+1, turn.name, got, turn.from)
		}
		if got := [2]int{len(primary.Requests()) - before[0], len(fallback.Requests()) - before[1]}; got != turn.asked {
			t.Errorf("turn %d (%s): requests to primary and fallback %v, want %v", i+1, turn.name, got, turn.asked)
		}
		if got := len(owner.all()); got != turn.told {
			t.Errorf("turn %d (%s): owner told %d times, want %d: %q", i+1, turn.name, got, turn.told, owner.all())
		}
		if w := [2]string{"anthropic", "claude-x"}; turn.from == w && f.Active() != 0 || turn.from != w && f.Active() != 1 {
			t.Errorf("turn %d (%s): active link %d after an answer from %v", i+1, turn.name, f.Active(), turn.from)
		}
	}
	lines := owner.all()
	if len(lines) != 2 {
		t.Fatalf("owner told %q, want two lines", lines)
	}
	for _, want := range []string{"anthropic claude-x is failing (529 overloaded)", "openai-compatible gpt-x answers for now"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("take-over notice %q does not say %q", lines[0], want)
		}
	}
	if !strings.Contains(lines[1], "anthropic claude-x answers again") {
		t.Errorf("back notice %q does not say the primary answers again", lines[1])
	}
	for _, l := range lines {
		if strings.Contains(l, "key-") || strings.Contains(l, "Overloaded") {
			t.Errorf("a notice carries a key or the API's own words: %q", l)
		}
	}
	// Each link builds its own request: its model, its cap, and for the
	// Anthropic primary its cache marks; the fallback's prefix is the
	// same bytes every turn, so its own cache holds.
	fb := fallback.Requests()
	for _, r := range fb {
		if r.Model != "gpt-x" || !strings.Contains(string(r.Body), `"max_completion_tokens":300`) {
			t.Errorf("fallback request for model %q: %s", r.Model, r.Body)
		}
		if r.System != fb[0].System || strings.Join(r.Tools, ",") != strings.Join(fb[0].Tools, ",") {
			t.Errorf("the fallback's prefix changed between turns")
		}
	}
	for _, r := range primary.Requests() {
		if r.Model != "claude-x" || !r.CacheControl || !strings.Contains(string(r.Body), `"max_tokens":1000`) {
			t.Errorf("primary request for model %q without its cache marks or cap: %s", r.Model, r.Body)
		}
	}
}

// TestNoFailoverOnTheOwnersErrorsA3: a refused key, a bad request, a
// forbidden model or a wrong model name is the owner's to fix: the
// fallback is not asked, nobody is told, and the error says what to fix;
// a fallback's own refusal while the primary is down says so too.
func TestNoFailoverOnTheOwnersErrorsA3(t *testing.T) {
	for _, tc := range []struct {
		name              string
		primary, fallback []fakellm.Step
		code              jarvisbot.Code
		mentions          []string
		askedFallback     int
	}{
		{"key refused", []fakellm.Step{{Status: 401, Text: "invalid x-api-key key-a"}}, nil, jarvisbot.EINVALID,
			[]string{"anthropic claude-x", "refused its API key", "jarvisbot secrets set ANTHROPIC_API_KEY"}, 0},
		{"forbidden", []fakellm.Step{{Status: 403}}, nil, jarvisbot.EFORBIDDEN, []string{"403 Forbidden", "provider.model"}, 0},
		{"bad request", []fakellm.Step{{Status: 400, Text: "max_tokens too large"}}, nil, jarvisbot.EINVALID, []string{"refused the request"}, 0},
		{"no such model", []fakellm.Step{{Status: 404}}, nil, jarvisbot.EINVALID, []string{"provider.model", "provider.base_url"}, 0},
		{"the fallback's key refused", []fakellm.Step{{Status: 503}, {Status: 503}}, []fakellm.Step{{Status: 401}}, jarvisbot.EINVALID,
			[]string{"openai-compatible gpt-x", "refused its API key", "OPENAI_API_KEY"}, 1},
		{"both down", []fakellm.Step{{Status: 503}, {Status: 503}}, []fakellm.Step{{Status: 502}, {Status: 502}}, jarvisbot.EUNAVAILABLE,
			[]string{"none of the models answers", "503 Service Unavailable", "502 Bad Gateway"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, f, primary, fallback, owner, _ := testChain(t, time.Minute)
			primary.Push(tc.primary...)
			fallback.Push(tc.fallback...)
			_, err := p.Complete(context.Background(), chainRequest("hi"))
			if err == nil {
				t.Fatal("the call succeeded")
			}
			if got := jarvisbot.ErrorCode(err); got != tc.code {
				t.Errorf("code %s, want %s: %v", got, tc.code, err)
			}
			for _, m := range tc.mentions {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not say %q", err, m)
				}
			}
			if strings.Contains(err.Error(), "key-a") {
				t.Errorf("error %q repeats the key", err)
			}
			if n := len(fallback.Requests()); n != tc.askedFallback {
				t.Errorf("the fallback was asked %d times, want %d", n, tc.askedFallback)
			}
			if lines := owner.all(); len(lines) != 0 || f.Active() != 0 {
				t.Errorf("owner told %q, active link %d: nothing answered, nothing switched", lines, f.Active())
			}
		})
	}
}

// TestChainStopsWithItsCallerA3: a turn cancelled by its caller ends the
// call at once; the fallback is not asked.
func TestChainStopsWithItsCallerA3(t *testing.T) {
	p, _, primary, fallback, _, _ := testChain(t, time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	defer close(release)
	primary.Push(fakellm.Step{Release: release})
	done := make(chan error, 1)
	go func() { _, err := p.Complete(ctx, chainRequest("hi")); done <- err }()
	for len(primary.Requests()) == 0 {
		select {
		case err := <-done:
			t.Fatalf("the call ended before it reached the primary: %v", err)
		case <-time.After(time.Millisecond):
		}
	}
	cancel()
	if err := <-done; err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("a cancelled call: %v", err)
	}
	if n := len(fallback.Requests()); n != 0 {
		t.Errorf("the fallback was asked %d times after the caller's cancel", n)
	}
}

// TestChooseChainA3: fallbacks resolve like the primary, each with its own
// address and key (under the name its entry gives); a fallback without a
// timeout takes the primary's. An agent's single entry keeps the
// installation's fallbacks behind its own model, its own list replaces
// them, and a coding CLI, which runs the whole turn, drops them.
func TestChooseChainA3(t *testing.T) {
	chain := Settings{Name: "anthropic", Model: "claude-x", Timeout: time.Minute, Fallbacks: []Settings{
		{Name: "OpenAI", Model: "gpt-x", APIKeySecret: "WORK_OPENAI", MaxTokens: 500},
		{Name: "openai", Model: "llama3.1", BaseURL: "http://localhost:11434/v1", Timeout: 5 * time.Second}}}
	keys := map[string]string{"ANTHROPIC_API_KEY": "a", "WORK_OPENAI": "w"}
	ch, err := Choose(context.Background(), chain, env(nil, keys))
	if err != nil {
		t.Fatal(err)
	}
	want := []Link{
		{Config: Config{Provider: "openai", Model: "gpt-x", APIKey: "w", Timeout: time.Minute}, MaxTokens: 500},
		{Config: Config{Provider: "openai", Model: "llama3.1", BaseURL: "http://localhost:11434/v1", Timeout: 5 * time.Second}},
	}
	if len(ch.Fallbacks) != len(want) || ch.Fallbacks[0] != want[0] || ch.Fallbacks[1] != want[1] {
		t.Errorf("fallbacks %+v, want %+v", ch.Fallbacks, want)
	}
	for _, tc := range []struct {
		name   string
		agent  Settings
		model  string
		models []string
	}{
		{"an agent's single entry keeps the chain", Settings{Model: "claude-y"}, "claude-y", []string{"gpt-x", "llama3.1"}},
		{"an agent's list is its chain", Settings{Model: "claude-y", Fallbacks: []Settings{{Name: "openai", Model: "gpt-y", APIKeySecret: "WORK_OPENAI"}}}, "claude-y", []string{"gpt-y"}},
		{"an agent's list of one has no fallbacks", Settings{Model: "claude-y", Fallbacks: []Settings{}}, "claude-y", nil},
		{"an agent's coding CLI drops the chain", Settings{Name: "claude-code"}, "claude-x", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch, err := Choose(context.Background(), chain.Over(tc.agent), env(nil, keys))
			if err != nil {
				t.Fatal(err)
			}
			var models []string
			for _, l := range ch.Fallbacks {
				models = append(models, l.Config.Model)
			}
			if ch.Config.Model != tc.model || strings.Join(models, ",") != strings.Join(tc.models, ",") {
				t.Errorf("chain %s then %v, want %s then %v", ch.Config.Model, models, tc.model, tc.models)
			}
		})
	}
	for _, tc := range []struct {
		name     string
		fallback Settings
		err      string
	}{
		{"a CLI as a fallback", Settings{Name: "codex"}, `fallback 1 names "codex"`},
		{"a fallback without its key", Settings{Name: "openai", Model: "gpt-x"}, "provider fallback 1 (openai): no OpenAI API key"},
		{"a fallback without a model", Settings{Name: "openai", BaseURL: "http://local/v1"}, "provider fallback 1 (openai): no model set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Settings{Name: "anthropic", Model: "m", Fallbacks: []Settings{tc.fallback}}
			_, err := Choose(context.Background(), s, env(nil, map[string]string{"ANTHROPIC_API_KEY": "a"}))
			if err == nil || !strings.Contains(err.Error(), tc.err) || jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
				t.Errorf("err = %v, want an invalid-settings error with %q", err, tc.err)
			}
		})
	}
}

// TestChainLinkWaitsLittleA3: a busy primary that asks to be called again
// in half a minute (Retry-After) is not waited for: the turn goes to the
// fallback at once, while a short wait is still retried on the same link.
func TestChainLinkWaitsLittleA3(t *testing.T) {
	for _, tc := range []struct {
		retryAfter string
		wait       time.Duration // the link's wait before its retry, on the clock
		sends      int           // to the primary
	}{
		{"30", 0, 1},
		{"0", 0, 2},
		{"1", time.Second, 2},
	} {
		t.Run("Retry-After "+tc.retryAfter, func(t *testing.T) {
			var mu sync.Mutex
			sends := 0
			busy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				sends++
				mu.Unlock()
				w.Header().Set("Retry-After", tc.retryAfter)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = w.Write([]byte(`{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`))
			}))
			defer busy.Close()
			fallback := fakellm.New(t)
			fallback.Push(fakellm.Step{Text: "here"})
			clk := clock.NewFake(time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC))
			f := &Failover{Clock: clk}
			p, err := f.Build(Choice{Config: Config{Provider: "anthropic", Model: "m", APIKey: "k", BaseURL: busy.URL},
				Fallbacks: []Link{{Config: Config{Provider: "openai", Model: "g", APIKey: "k", BaseURL: fallback.OpenAIURL()}}}})
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan Response, 1)
			go func() {
				res, err := p.Complete(context.Background(), chainRequest("hi"))
				if err != nil {
					t.Error(err)
				}
				done <- res
			}()
			if tc.wait > 0 {
				testwait.For(t, 5*time.Second, "the link to wait before its retry", func() (bool, any) { return clk.Pending() == 1, clk.Pending() })
				clk.Advance(tc.wait)
			}
			var res Response
			select {
			case res = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("the call waited on the busy primary")
			}
			mu.Lock()
			defer mu.Unlock()
			if res.Provider != "openai" || sends != tc.sends {
				t.Errorf("answered by %q after %d sends to the primary, want openai after %d", res.Provider, sends, tc.sends)
			}
		})
	}
}
