package app

import (
	"context"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestChatAnswersAtTheConsoleA2: without a model, chat says what to set
// before anything starts; with one, a single message is answered, and an
// interactive console greets the owner once it listens, answers, and ends
// with its input.
func TestChatAnswersAtTheConsoleA2(t *testing.T) {
	ctx := context.Background()
	bare := testEnv(t, nil)
	cfg, err := bare.LoadConfig()
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := bare.Chat(ctx, cfg, ChatOptions{Agent: store.DefaultAgent, In: strings.NewReader(""), Out: &out, Once: "hello"}); err == nil {
		t.Errorf("chat without a model: no error; printed %q", out.String())
	}

	f := fakellm.New(t)
	in := testInstallation(t, map[string]string{"JARVIS_PROVIDER": "anthropic", "JARVIS_MODEL": "test-model",
		"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": f.AnthropicURL()})
	f.Push(fakellm.Step{Text: "Hi, I am here."})
	out.Reset()
	if err := in.Env.Chat(ctx, in.Config, ChatOptions{Agent: store.DefaultAgent, In: strings.NewReader(""), Out: &out, Once: "hello"}); err != nil || !strings.Contains(out.String(), "Hi, I am here.") {
		t.Fatalf("chat -m: %v\n%s", err, out.String())
	}

	f.Push(fakellm.Step{Text: "Good morning to you."})
	out.Reset()
	greeted := 0
	err = in.Env.Chat(ctx, in.Config, ChatOptions{Agent: store.DefaultAgent, In: strings.NewReader("good morning\n"), Out: &out,
		Listening: func() { greeted++ }})
	if err != nil || greeted != 1 || !strings.Contains(out.String(), "Good morning to you.") {
		t.Errorf("interactive chat: %v, greeted %d times\n%s", err, greeted, out.String())
	}
}
