package agents

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/skillbook"
	"github.com/jarvisbot/jarvisbot/skills"
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

// skillsFromStore ranks the enabled skills with the words the store keeps
// for them, read at every turn as the app's runtime does.
func skillsFromStore(t *testing.T, e *env, enabled []*skills.Skill) {
	e.rt.Skills = func(ctx context.Context, _ string) (*skills.Ranker, error) {
		all, err := e.db.LearnedWords(ctx, store.LearnedSkill)
		if err != nil {
			return nil, err
		}
		learned := map[string][]catalog.LearnedWord{}
		for name, list := range all {
			for _, w := range list {
				learned[name] = append(learned[name], catalog.LearnedWord{Stem: w.Word, Label: w.Label, Turns: w.Turns})
			}
		}
		return skills.NewRanker(skills.WithLearned(enabled, learned)), nil
	}
}

// TestSkillsLearnFromARecoveredTurnC9S3: the model asks by name for a
// skill the scorer did not bring and follows it: its skill learns the
// owner's words, and the next turn in those words has it enter, as one
// the model may decline (an instruction-only skill does not take a turn
// over on learned words); a manual asked for and then not used teaches
// nothing; a forgotten word no longer brings the skill.
func TestSkillsLearnFromARecoveredTurnC9S3(t *testing.T) {
	e, _ := recoverEnv(t, store.Agent{Name: "default"})
	e.rt.Learner = storeLearner{e.db}
	skillsFromStore(t, e, []*skills.Skill{humanizer, calendarManual})
	const first = "Mach mein Bewerbungsschreiben für die Kanzlei weniger hölzern"
	const later = "Das Bewerbungsschreiben an die Kanzlei klingt immer noch hölzern"
	for _, msg := range []string{first, later} {
		e.llm.Push(fakellm.Step{Text: "Hier."})
		if res := e.turnAs(t, "default", msg); slices.Contains(res.Skills, "skill:humanizer") {
			t.Fatalf("precondition: %q brings the humanizer already; the test needs a miss", msg)
		}
	}
	learned := func(name string) []store.LearnedWord {
		all, err := e.db.LearnedWords(context.Background(), store.LearnedSkill)
		if err != nil {
			t.Fatal(err)
		}
		return all[name]
	}
	// The manual is read but none of its service's tools is called.
	e.llm.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{call(skillbook.ID, `{"action":"use","name":"google-calendar"}`)}}, fakellm.Step{Text: "Nothing to do."})
	e.turnAs(t, "default", "Wann ist der Elternabend?")
	if got := learned("google-calendar"); len(got) != 0 {
		t.Errorf("a manual read and not used taught %+v", got)
	}
	e.llm.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{call(skillbook.ID, `{"action":"use","name":"humanizer"}`)}}, fakellm.Step{Text: "Sehr geehrte Damen und Herren, …"})
	e.turnAs(t, "default", first)
	got := learned("humanizer")
	if len(got) == 0 {
		t.Fatal("the recovered and followed skill learned nothing")
	}
	if srv, _ := e.db.LearnedWords(context.Background(), store.LearnedServer); len(srv) != 0 {
		t.Errorf("a skill's recovery taught servers: %+v", srv)
	}
	e.llm.Push(fakellm.Step{Text: "Hier."})
	res := e.turnAs(t, "default", later)
	if !slices.Contains(res.Skills, "skill:humanizer") {
		t.Fatalf("after learning %+v, %q does not bring the humanizer: %v", got, later, res.Skills)
	}
	reqs := e.llm.Requests()
	if sys := reqs[len(reqs)-1].System; !strings.Contains(sys, `The skill "humanizer" may fit this message`) {
		t.Errorf("on learned words alone the instruction-only skill does not just join:\n%s", sys)
	}
	if n, err := e.db.ForgetLearned(context.Background(), store.LearnedSkill, "humanizer", "bewerbungsschreiben"); err != nil || n != 1 {
		t.Fatalf("forgetting: %d %v", n, err)
	}
	if n, err := e.db.ForgetLearned(context.Background(), store.LearnedSkill, "humanizer", "holzern"); err != nil || n != 1 {
		t.Fatalf("forgetting: %d %v", n, err)
	}
	e.llm.Push(fakellm.Step{Text: "Hier."})
	if res := e.turnAs(t, "default", "Das Bewerbungsschreiben ist hölzern"); slices.Contains(res.Skills, "skill:humanizer") {
		t.Errorf("forgotten words still bring the humanizer (%+v left)", learned("humanizer"))
	}
}
