package desk

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
)

// TestPausedMessagesWaitM4: while paused no turn starts: the owner is
// told once by whom, the messages wait in order, and Resumed answers them.
func TestPausedMessagesWaitM4(t *testing.T) {
	d, plat, f, _ := setup(t, "test:1")
	var paused atomic.Bool
	paused.Store(true)
	d.opt.Paused = func() (bool, string) { return paused.Load(), "app ci-bot" }
	ctx := context.Background()
	d.HandleMessage(ctx, channels.Message{Chat: "test:1", User: "test:1", Text: "first"})
	d.HandleMessage(ctx, channels.Message{Chat: "test:1", User: "test:1", Text: "second"})
	if got := plat.to("test:1"); len(got) != 1 || !strings.Contains(got[0], "Paused by app ci-bot") {
		t.Fatalf("while paused the owner heard %q, want one notice", got)
	}
	if n := len(f.Requests()); n != 0 {
		t.Fatalf("%d model calls while paused", n)
	}
	f.Push(fakellm.Step{Text: "answer one"}, fakellm.Step{Text: "answer two"})
	paused.Store(false)
	d.Resumed()
	waitFor(t, "both answers after the resume", func() (bool, any) {
		got := plat.to("test:1")
		return len(got) == 3, got
	})
	got := plat.to("test:1")
	if got[1] != "answer one" || got[2] != "answer two" {
		t.Errorf("after the resume: %q", got)
	}
}

// TestPausedNoticeSaysHowToResumeX5: the notice names who paused and how
// the owner lifts it: /resume where the chat has it, else the CLI.
func TestPausedNoticeSaysHowToResumeX5(t *testing.T) {
	for _, tc := range []struct {
		name     string
		commands map[string]func(context.Context, string) string
		want     string
	}{
		{"chat command", map[string]func(context.Context, string) string{"resume": func(context.Context, string) string { return "" }}, "Send /resume to go on."},
		{"no chat command", nil, "Run jarvisbot resume to go on."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, plat, _, _ := setup(t, "test:1")
			d.opt.Paused = func() (bool, string) { return true, "app ci-bot" }
			d.opt.Commands = tc.commands
			d.HandleMessage(context.Background(), channels.Message{Chat: "test:1", User: "test:1", Text: "hello"})
			if got := plat.to("test:1"); len(got) != 1 || !strings.Contains(got[0], "Paused by app ci-bot") || !strings.Contains(got[0], tc.want) {
				t.Errorf("the notice: %q, want who paused and %q", got, tc.want)
			}
		})
	}
}
