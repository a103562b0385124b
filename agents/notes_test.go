package agents

import (
	"context"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestNoteReadAtNextTurnOnceM4: a note left for an agent (agent_message)
// is in the model request of the agent's next turn, with who left it, and
// in no turn after that.
func TestNoteReadAtNextTurnOnceM4(t *testing.T) {
	for _, p := range []string{"anthropic", "openai"} {
		t.Run(p, func(t *testing.T) {
			e := newEnv(t, p)
			e.rt.Notes = e.db
			ctx := context.Background()
			if _, err := e.db.AddNote(ctx, store.Note{Agent: "default", From: "cursor", Text: "the release moved to Friday"}); err != nil {
				t.Fatal(err)
			}
			e.llm.Push(fakellm.Step{Text: "Noted."}, fakellm.Step{Text: "Hello again."})
			e.turn(t, "anything new?")
			e.turn(t, "and now?")
			reqs := e.llm.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests, want 2", len(reqs))
			}
			if s := reqs[0].System; !strings.Contains(s, "the release moved to Friday") || !strings.Contains(s, "cursor") {
				t.Errorf("first turn's request does not carry the note from cursor: system %q", s)
			}
			if s := reqs[1].System; strings.Contains(s, "the release moved to Friday") {
				t.Errorf("second turn's request carries the note again: system %q", s)
			}
		})
	}
}
