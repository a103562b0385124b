package desk

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/agents/approvals"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// consoleDesk is a desk that runs only a console-named channel, as
// `chat` does, over a real store and a scripted model.
func consoleDesk(t *testing.T) (*Desk, *chatPlatform, *fakellm.Server, *sqlstore.DB) {
	t.Helper()
	db, f, rt := newRuntime(t)
	plat := &chatPlatform{name: "console"}
	d, err := New(context.Background(), Options{Runtime: rt, Approvals: approvals.New(approvals.Options{Store: db}), Store: db}, plat)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Drain(context.Background()) })
	return d, plat, f, db
}

// TestResumeOnlyRunningChannelsCH1: at start a desk answers the waiting
// messages of the channels it runs; another channel's (chat runs only the
// console) stay in the inbox for a start that runs it, instead of being
// answered into a channel that is not there and lost.
func TestResumeOnlyRunningChannelsCH1(t *testing.T) {
	d, plat, f, db := consoleDesk(t)
	ctx := context.Background()
	for _, m := range []store.Incoming{{Chat: "telegram:42", User: "telegram:42", Text: "from Telegram"}, {Chat: "console", User: "console", Text: "from the console"}} {
		if _, err := db.Receive(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	f.Push(fakellm.Step{Text: "the console's answer"})
	if err := d.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the console's answer", func() (bool, any) { got := plat.to("console"); return len(got) == 1, got })
	d.Drain(ctx)
	w, err := db.Waiting(ctx)
	if err != nil || len(w) != 1 || w[0].Chat != "telegram:42" {
		t.Errorf("waiting after the console's start: %+v %v; want Telegram's message kept", w, err)
	}
	if n := len(f.Requests()); n != 1 {
		t.Errorf("%d model calls, want 1 (the console's message)", n)
	}
}

// TestAskWaitsForTheAnswerCH1: Ask (chat -m) returns once its message is
// answered, with the turn's error when the model fails; a slash command
// returns at once.
func TestAskWaitsForTheAnswerCH1(t *testing.T) {
	d, plat, f, _ := consoleDesk(t)
	ctx := context.Background()
	msg := func(text string) channels.Message {
		return channels.Message{Chat: "console", User: "console", Name: "you", Text: text}
	}
	release := make(chan struct{})
	f.Push(fakellm.Step{Text: "answered", Release: release})
	asked := make(chan error, 1)
	go func() { asked <- d.Ask(ctx, msg("hello")) }()
	waitFor(t, "the model call", func() (bool, any) { return len(f.Requests()) == 1, len(f.Requests()) })
	select {
	case err := <-asked:
		t.Fatalf("Ask returned before the answer: %v", err)
	default:
	}
	close(release)
	if err := <-asked; err != nil {
		t.Fatal(err)
	}
	if got := plat.to("console"); len(got) != 1 || got[0] != "answered" {
		t.Errorf("sent %q", got)
	}
	f.Push(fakellm.Step{Status: 400, Text: "bad request"})
	err := d.Ask(ctx, msg("again"))
	if err == nil || !strings.Contains(plat.to("console")[1], "I could not answer") {
		t.Errorf("a failed turn: Ask = %v, sent %q", err, plat.to("console"))
	}
	if err := d.Ask(ctx, msg("/help")); err != nil || !strings.Contains(plat.to("console")[2], "/cancel") {
		t.Errorf("/help: %v %q", err, plat.to("console"))
	}
}

// TestConsoleRequestDrawnAgainCH2: a request drawn on the console before
// a restart is drawn again (the terminal that showed it is gone), with
// keys a console can type; one drawn on a platform keeps its prompt.
func TestConsoleRequestDrawnAgainCH2(t *testing.T) {
	d, plat, _, db := consoleDesk(t)
	ctx := context.Background()
	for i, chat := range []string{"console", "test:1"} {
		ap := store.Approval{ID: fmt.Sprintf("ap%d", i), Agent: "default", Chat: chat, Tool: "cli:echo", Summary: "run echo", State: store.ApprovalPending,
			CreatedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)}
		if err := db.CreateApproval(ctx, ap); err != nil {
			t.Fatal(err)
		}
		if err := db.SetApprovalMessage(ctx, ap.ID, chat, "7"); err != nil {
			t.Fatal(err)
		}
		d.Redraw(ctx, ap)
	}
	plat.mu.Lock()
	defer plat.mu.Unlock()
	if len(plat.sent) != 1 || plat.sent[0].Chat != "console" || !strings.HasPrefix(plat.sent[0].Text, "Approval needed: run echo\nAsked by agent default · cli:echo\nApprove? It expires at ") {
		t.Fatalf("redrawn: %+v; want the console's request only", plat.sent)
	}
	var keys []string
	for _, row := range plat.sent[0].Buttons {
		for _, b := range row {
			keys = append(keys, b.Keys...)
		}
	}
	if strings.Join(keys, " ") != "y yes n no a always" {
		t.Errorf("keys %v", keys)
	}
}
