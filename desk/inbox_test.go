package desk

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestOrderPerChatCH1: messages of one chat are answered in order, one at
// a time, none dropped; chats run side by side.
func TestOrderPerChatCH1(t *testing.T) {
	d, plat, f, _ := setup(t, "test:1", "test:2")
	ctx := context.Background()
	const n = 5
	for i := 0; i < 2*n; i++ {
		f.Push(fakellm.Step{Text: "answer"})
	}
	for i := 0; i < n; i++ {
		for _, chat := range []string{"test:1", "test:2"} {
			d.HandleMessage(ctx, channels.Message{Chat: chat, User: chat, Text: fmt.Sprintf("%s message %d", chat, i)})
		}
	}
	waitFor(t, "every answer", func() (bool, any) {
		one, two := plat.to("test:1"), plat.to("test:2")
		return len(one) == n && len(two) == n, [][]string{one, two}
	})
	// The model saw each chat's messages in order.
	seen := map[string][]string{}
	for _, r := range f.Requests() {
		last := r.Messages[len(r.Messages)-1].Text
		first := r.Messages[0].Text
		seen[first] = append(seen[first], last)
	}
	if len(seen) != 2 {
		t.Fatalf("the model saw %d chats, want 2: %v", len(seen), seen)
	}
	for first, msgs := range seen {
		chat := strings.Fields(first)[0]
		if len(msgs) != n {
			t.Errorf("the model saw %d turns of %s, want %d: %v", len(msgs), chat, n, msgs)
		}
		for i, m := range msgs {
			if m != fmt.Sprintf("%s message %d", chat, i) {
				t.Errorf("order: %v", msgs)
				break
			}
		}
	}
}

// TestInboxSurvivesRestartCH1: a message received and not yet answered
// when the service stops is answered after the restart, once.
func TestInboxSurvivesRestartCH1(t *testing.T) {
	d, plat, f, db := setup(t, "test:1")
	ctx := context.Background()
	// Received, stored, but the service stopped before its turn.
	if _, err := db.Receive(ctx, store.Incoming{Chat: "test:1", User: "test:1", Text: "before the crash"}); err != nil {
		t.Fatal(err)
	}
	f.Push(fakellm.Step{Text: "answered after the restart"})
	if err := d.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the answer", func() (bool, any) { got := plat.to("test:1"); return len(got) == 1, got })
	waitFor(t, "the inbox to empty", func() (bool, any) { w, err := db.Waiting(ctx); return err == nil && len(w) == 0, fmt.Sprint(w, err) })
	if got := plat.to("test:1"); !strings.Contains(got[0], "answered after the restart") {
		t.Errorf("answer %q", got)
	}
}
