package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/app/apptest"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/store"
)

// chainInstallation is an installation whose config chains an Anthropic
// primary (given up after timeout) and an OpenAI-compatible fallback,
// each on its own scripted model.
func chainInstallation(t *testing.T, timeout time.Duration) (*Installation, *fakellm.Server, *fakellm.Server) {
	t.Helper()
	primary, fallback := fakellm.New(t), fakellm.New(t)
	path := filepath.Join(t.TempDir(), "config.yaml")
	conf := fmt.Sprintf(`log_level: warn
provider:
  - {name: anthropic, model: claude-x, base_url: %q, timeout: %s}
  - {name: openai, model: gpt-x, base_url: %q, api_key_secret: FALLBACK_KEY}
`, primary.AnthropicURL(), timeout, fallback.OpenAIURL())
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	in := testInstallation(t, map[string]string{"JARVIS_CONFIG": path, "ANTHROPIC_API_KEY": "key-a", "FALLBACK_KEY": "key-o"})
	return in, primary, fallback
}

// TestTurnsFailOverAndBackA3: the running service's turns, each building
// its model anew, share the chain's health: a primary answering 529, then
// 503, then not in time hands the turns to the fallback, the primary is
// tried again each time its interval has passed on the pinned clock, and
// serves again once it answers. The owner hears of it twice in all, and
// each recorded model call names the link that answered.
func TestTurnsFailOverAndBackA3(t *testing.T) {
	ctx := context.Background()
	in, primary, fallback := chainInstallation(t, 300*time.Millisecond)
	svc, err := in.Env.BuildService(ctx, in.Config, slog.New(slog.NewTextHandler(io.Discard, nil)), func(store.Approval) {}, func(store.Approval) {})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	var mu sync.Mutex
	var told []string
	svc.notice = func(_ context.Context, text string) {
		mu.Lock()
		defer mu.Unlock()
		told = append(told, text)
	}
	clk := in.Env.Clock.(*clock.Fake)
	for i, turn := range []struct {
		advance           time.Duration
		primary, fallback []fakellm.Step
		answer            string
		told              int
	}{
		{0, []fakellm.Step{{Status: 529}, {Status: 529}}, []fakellm.Step{{Text: "from the fallback"}}, "from the fallback", 1},
		{time.Minute, nil, []fakellm.Step{{Text: "still the fallback"}}, "still the fallback", 1},
		{llm.DefaultRetryPrimary, []fakellm.Step{{Status: 503}, {Status: 503}}, []fakellm.Step{{Text: "fallback again"}}, "fallback again", 1},
		{llm.DefaultRetryPrimary, []fakellm.Step{{Hang: true}}, []fakellm.Step{{Text: "fallback once more"}}, "fallback once more", 1},
		{llm.DefaultRetryPrimary, []fakellm.Step{{Text: "the primary again"}}, nil, "the primary again", 2},
		{0, []fakellm.Step{{Text: "the primary serves"}}, nil, "the primary serves", 2},
	} {
		clk.Advance(turn.advance)
		primary.Push(turn.primary...)
		fallback.Push(turn.fallback...)
		res, err := svc.runtime.Turn(ctx, agents.Input{Agent: store.DefaultAgent, Chat: "console", Text: fmt.Sprintf("message %d", i+1)})
		if err != nil || res.Text != turn.answer {
			t.Fatalf("turn %d: %q, %v; want %q", i+1, res.Text, err, turn.answer)
		}
		mu.Lock()
		n := len(told)
		mu.Unlock()
		if n != turn.told {
			t.Errorf("turn %d: the owner was told %d times, want %d: %q", i+1, n, turn.told, told)
		}
		mc, err := svc.ModelChain(ctx, store.DefaultAgent)
		if err != nil || strings.Join(mc.Links, ",") != "anthropic claude-x,openai gpt-x" {
			t.Errorf("turn %d: model chain %+v, %v", i+1, mc, err)
		}
		if serving := map[bool]int{true: 0, false: 1}[strings.Contains(turn.answer, "primary")]; mc.Serving != serving {
			t.Errorf("turn %d: link %d serves, want %d", i+1, mc.Serving, serving)
		}
		if mc.Serving == 1 && (mc.Reason == "" || !mc.Since.Equal(apptest.Noon())) {
			t.Errorf("turn %d: a fallback serves since %s because %q, want since the first turn and a reason", i+1, mc.Since, mc.Reason)
		}
		if primary.Pending()+fallback.Pending() != 0 {
			t.Errorf("turn %d: scripted answers left unasked: primary %d, fallback %d", i+1, primary.Pending(), fallback.Pending())
		}
	}
	if len(told) == 2 && (!strings.Contains(told[0], "anthropic claude-x is failing (529 overloaded); openai-compatible gpt-x answers for now") ||
		!strings.Contains(told[1], "anthropic claude-x answers again")) {
		t.Errorf("the owner was told %q", told)
	}
	calls, err := svc.DB.ModelCallsSince(ctx, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var who []string
	for _, c := range calls {
		who = append(who, c.Provider+" "+c.Model)
	}
	want := "openai gpt-x,openai gpt-x,openai gpt-x,openai gpt-x,anthropic claude-x,anthropic claude-x"
	if strings.Join(who, ",") != want {
		t.Errorf("recorded calls by %v, want %s", who, want)
	}

	// A refused key is the owner's to fix: no fallback, no notice, and
	// the error names the key.
	primary.Push(fakellm.Step{Status: 401, Text: "invalid x-api-key"})
	_, err = svc.runtime.Turn(ctx, agents.Input{Agent: store.DefaultAgent, Chat: "console", Text: "and now?"})
	if err == nil || !strings.Contains(err.Error(), "jarvisbot secrets set ANTHROPIC_API_KEY") {
		t.Errorf("a refused key: %v, want the key to fix named", err)
	}
	if n := len(fallback.Requests()); n != 4 {
		t.Errorf("the fallback was asked %d times in all, want 4 (not after the refused key)", n)
	}
	if len(told) != 2 {
		t.Errorf("the owner was told %q after a refused key, want the two notices only", told)
	}
}

// TestFailoverNoticeReachesTheMainChatA3: the notice goes where scheduled
// reports go, the owner's main chat (here the console), before the
// fallback's answer, and without a key in it.
func TestFailoverNoticeReachesTheMainChatA3(t *testing.T) {
	in, primary, fallback := chainInstallation(t, time.Minute)
	primary.Push(fakellm.Step{Status: 503}, fakellm.Step{Status: 503})
	fallback.Push(fakellm.Step{Text: "Hello from the fallback."})
	var out strings.Builder
	err := in.Env.Chat(context.Background(), in.Config, ChatOptions{Agent: store.DefaultAgent, In: strings.NewReader(""), Out: &out, Once: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	got := out.String()
	notice := strings.Index(got, "anthropic claude-x is failing (503 Service Unavailable); openai-compatible gpt-x answers for now")
	answer := strings.Index(got, "Hello from the fallback.")
	if notice < 0 || answer < 0 || notice > answer {
		t.Errorf("console output:\n%s\nwant the notice, then the answer", got)
	}
	if strings.Contains(got, "key-") {
		t.Errorf("a key reached the chat:\n%s", got)
	}
}
