package agents

import (
	"context"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/skillbook"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// storeLearner keeps learned words in the real store, as the app's does.
type storeLearner struct{ db *sqlstore.DB }

func (l storeLearner) Learn(ctx context.Context, kind store.LearnedKind, name string, words []catalog.LearnedWord) error {
	list := make([]store.LearnedWord, len(words))
	for i, w := range words {
		list[i] = store.LearnedWord{Word: w.Stem, Label: w.Label}
	}
	return l.db.LearnWords(ctx, kind, name, list, time.Date(2026, 12, 6, 19, 0, 0, 0, time.UTC))
}

// TestOnlyTheOwnersRecoveredTurnsTeachC9: a recovered miss that the model
// then used teaches the gate the owner's content words for that server;
// the same turn asked by an app teaches nothing unless the owner allowed
// it; a recovery whose service was not used teaches nothing.
func TestOnlyTheOwnersRecoveredTurnsTeachC9(t *testing.T) {
	e, _ := recoverEnv(t, store.Agent{Name: "default"})
	e.rt.Learner = storeLearner{e.db}
	const text = "Wo kriege ich sonntags Hustensaft?"
	recovered := func(use bool) {
		steps := []fakellm.Step{{ToolCalls: []fakellm.ToolCall{call(skillbook.ID, `{"action":"tools","service":"google-maps"}`)}}}
		if use {
			steps = append(steps, fakellm.Step{ToolCalls: []fakellm.ToolCall{call("mcp:google-maps/maps_search_places", `{"query":"Apotheke"}`)}})
		}
		e.llm.Push(append(steps, fakellm.Step{Text: "Done."})...)
	}
	learned := func() []store.LearnedWord {
		all, err := e.db.LearnedWords(context.Background(), store.LearnedServer)
		if err != nil {
			t.Fatal(err)
		}
		return all["google-maps"]
	}
	recovered(true)
	if _, err := e.rt.Turn(context.Background(), Input{Agent: "default", Chat: "app:ops", Text: text, App: "ops"}); err != nil {
		t.Fatal(err)
	}
	if got := learned(); len(got) != 0 {
		t.Errorf("an app's turn taught %+v", got)
	}
	recovered(false)
	e.turnAs(t, "default", text)
	if got := learned(); len(got) != 0 {
		t.Errorf("a recovery that was not used taught %+v", got)
	}
	recovered(true)
	e.turnAs(t, "default", text)
	got := learned()
	if len(got) == 0 {
		t.Fatal("the owner's recovered turn taught nothing")
	}
	for _, w := range got {
		if w.Word == "ich" || w.Word == "wo" {
			t.Errorf("a function word was learned: %+v", w)
		}
	}
	e.rt.LearnFromAll = true
	recovered(true)
	if _, err := e.rt.Turn(context.Background(), Input{Agent: "default", Chat: "app:ops", Text: "Wo gibt es Lakritzschnecken?", App: "ops"}); err != nil {
		t.Fatal(err)
	}
	if n := len(learned()); n <= len(got) {
		t.Errorf("with apps allowed to teach, an app's turn taught nothing (%d words)", n)
	}
}
