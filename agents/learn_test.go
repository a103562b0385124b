package agents

import (
	"context"
	"os"
	"path"
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

func (l storeLearner) Learn(ctx context.Context, kind store.LearnedKind, name, chat string, words []catalog.LearnedWord) error {
	list := make([]store.LearnedWord, len(words))
	for i, w := range words {
		list[i] = store.LearnedWord{Word: w.Stem, Label: w.Label, Chat: chat}
	}
	return l.db.LearnWords(ctx, kind, name, list, time.Date(2026, 12, 6, 19, 0, 0, 0, time.UTC))
}

func (l storeLearner) Ignored(ctx context.Context, kind store.LearnedKind, name string, words []string) error {
	_, err := l.db.IgnoreLearned(ctx, kind, name, words)
	return err
}

func (l storeLearner) Used(ctx context.Context, kind store.LearnedKind, name string, words []string) error {
	return l.db.UsedLearned(ctx, kind, name, words)
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
		if w.Chat != "console" {
			t.Errorf("a learned word does not name the chat of the turn that taught it: %+v", w)
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
func skillsFromStore(e *env, enabled []*skills.Skill) {
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
	skillsFromStore(e, []*skills.Skill{humanizer, calendarManual})
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

// liveLearner keeps learned words in the real store and gives a server's
// to the catalog after each change, as the app's learner does.
type liveLearner struct {
	storeLearner
	c *catalog.Catalog
}

func (l liveLearner) sync(ctx context.Context, kind store.LearnedKind, name string, err error) error {
	if err != nil || kind != store.LearnedServer {
		return err
	}
	all, err := l.db.LearnedWords(ctx, store.LearnedServer)
	if err != nil {
		return err
	}
	var words []catalog.LearnedWord
	for _, w := range all[name] {
		words = append(words, catalog.LearnedWord{Stem: w.Word, Label: w.Label, Turns: w.Turns, Ignored: w.Ignored})
	}
	l.c.SetLearned(name, words)
	return nil
}

func (l liveLearner) Learn(ctx context.Context, kind store.LearnedKind, name, chat string, words []catalog.LearnedWord) error {
	return l.sync(ctx, kind, name, l.storeLearner.Learn(ctx, kind, name, chat, words))
}

func (l liveLearner) Ignored(ctx context.Context, kind store.LearnedKind, name string, words []string) error {
	return l.sync(ctx, kind, name, l.storeLearner.Ignored(ctx, kind, name, words))
}

func (l liveLearner) Used(ctx context.Context, kind store.LearnedKind, name string, words []string) error {
	return l.sync(ctx, kind, name, l.storeLearner.Used(ctx, kind, name, words))
}

// offers reports whether a turn was offered a server's tools.
func offers(res Result, server string) bool {
	return slices.ContainsFunc(res.Tools, func(id string) bool { return strings.HasPrefix(id, "mcp:"+server+"/") })
}

// TestIgnoredLearnedWordsAreDroppedC9: words the gate learned for a
// server offer it; each turn that is offered it on them and calls none of
// its tools weighs them less (one such word alone no longer offers it
// after the first, though it still supports other evidence), a turn that
// uses it starts them over, and the third ignored offer drops them: the
// request is missed again, as before any learning. An app's ignored offer
// counts nothing.
func TestIgnoredLearnedWordsAreDroppedC9(t *testing.T) {
	e, _ := recoverEnv(t, store.Agent{Name: "default"})
	e.rt.Learner = liveLearner{storeLearner{e.db}, e.catalog}
	const first = "Wo kriege ich sonntags Hustensaft für die Kleine?"
	// Said with an everyday word of maps' ("in der Nähe"), which alone
	// offers nothing: learned words ignored once still support it.
	const later = "Ich brauche sonntags Hustensaft in der Nähe"
	const alone = "Hol mir Hustensaft"
	ignore := func(msg string) Result {
		e.llm.Push(fakellm.Step{Text: "Keine Ahnung."})
		return e.turnAs(t, "default", msg)
	}
	ignored := func() map[string]int {
		all, err := e.db.LearnedWords(context.Background(), store.LearnedServer)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int{}
		for _, w := range all["google-maps"] {
			out[w.Word] = w.Ignored
		}
		return out
	}
	if offers(ignore(later), "google-maps") {
		t.Fatalf("precondition: %q is offered maps before learning", later)
	}
	e.llm.Push(
		fakellm.Step{ToolCalls: []fakellm.ToolCall{call(skillbook.ID, `{"action":"tools","service":"google-maps"}`)}},
		fakellm.Step{ToolCalls: []fakellm.ToolCall{call("mcp:google-maps/maps_search_places", `{"query":"Apotheke Notdienst"}`)}},
		fakellm.Step{Text: "Die Apotheke am Markt."},
	)
	e.turnAs(t, "default", first)
	if !offers(ignore(alone), "google-maps") {
		t.Fatalf("after learning %v, %q is not offered maps", ignored(), alone)
	}
	// An app's turn judges nothing.
	e.llm.Push(fakellm.Step{Text: "Keine Ahnung."})
	if _, err := e.rt.Turn(context.Background(), Input{Agent: "default", Chat: "app:ops", Text: alone, App: "ops"}); err != nil {
		t.Fatal(err)
	}
	if got := ignored(); got["hustensaft"] != 1 {
		t.Fatalf("after one ignored offer of the owner's and one of an app's: %v", got)
	}
	if offers(ignore(alone), "google-maps") {
		t.Errorf("a word ignored once still offers maps alone")
	}
	// Used: the words that brought the offer start over.
	e.llm.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{call("mcp:google-maps/maps_search_places", `{"query":"Apotheke"}`)}}, fakellm.Step{Text: "Da."})
	if res := e.turnAs(t, "default", later); !offers(res, "google-maps") {
		t.Fatalf("%q is not offered maps on two words ignored once: %v", later, ignored())
	}
	if got := ignored(); got["hustensaft"] != 0 || got["sonntag"] != 0 {
		t.Fatalf("a used offer did not start its words over: %v", got)
	}
	for i := range store.MaxIgnored {
		if !offers(ignore(later), "google-maps") {
			t.Fatalf("ignored offer %d: %q is no longer offered maps (%v)", i+1, later, ignored())
		}
	}
	if got := ignored(); len(got) > 0 {
		t.Errorf("words ignored %d times are kept: %v", store.MaxIgnored, got)
	}
	if offers(ignore(later), "google-maps") {
		t.Errorf("after %d ignored offers %q is still offered maps (%v)", store.MaxIgnored, later, ignored())
	}
}

// whatShips are the shipped general skills and every store plugin's
// manual: a learned word weighs what it does among as many skills as a
// real installation ranks.
func whatShips(t *testing.T) []*skills.Skill {
	t.Helper()
	list, err := skills.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	const dir = "../plugins/shipped"
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			manuals, err := skills.LoadAll(os.DirFS(dir), path.Join(e.Name(), "skills"))
			if err != nil {
				t.Fatal(err)
			}
			list = append(list, manuals...)
		}
	}
	return list
}

// TestIgnoredSkillWordsAreDroppedC9: words learned for a plugin's manual
// bring it into later turns; each turn that has it on them and calls no
// tool of its plugin counts an ignored offer, and after the third the
// manual no longer enters on them.
func TestIgnoredSkillWordsAreDroppedC9(t *testing.T) {
	e, _ := recoverEnv(t, store.Agent{Name: "default"})
	e.rt.Learner = liveLearner{storeLearner{e.db}, e.catalog}
	skillsFromStore(e, whatShips(t))
	const first = "Wann ist der Elternabend?"
	const later = "Ist der Elternabend schon vorbei?"
	ignore := func() Result {
		e.llm.Push(fakellm.Step{Text: "Weiß ich nicht."})
		return e.turnAs(t, "default", later)
	}
	if res := ignore(); slices.Contains(res.Skills, "skill:google-calendar") {
		t.Fatalf("precondition: %q brings the calendar manual before learning", later)
	}
	e.llm.Push(
		fakellm.Step{ToolCalls: []fakellm.ToolCall{call(skillbook.ID, `{"action":"use","name":"google-calendar"}`)}},
		fakellm.Step{ToolCalls: []fakellm.ToolCall{call("mcp:google-calendar/list-calendars", `{}`)}},
		fakellm.Step{Text: "Am Dienstag um 19 Uhr."},
	)
	e.turnAs(t, "default", first)
	for i := range store.MaxIgnored {
		if res := ignore(); !slices.Contains(res.Skills, "skill:google-calendar") {
			t.Fatalf("ignored offer %d: %q no longer brings the manual: %v", i+1, later, res.Skills)
		}
	}
	if all, _ := e.db.LearnedWords(context.Background(), store.LearnedSkill); len(all["google-calendar"]) != 0 {
		t.Errorf("words ignored %d times are kept: %+v", store.MaxIgnored, all["google-calendar"])
	}
	if res := ignore(); slices.Contains(res.Skills, "skill:google-calendar") {
		t.Errorf("after %d ignored offers %q still brings the manual", store.MaxIgnored, later)
	}
}
