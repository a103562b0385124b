package dispatch

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
