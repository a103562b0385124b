package evalset

import (
	"slices"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
)

func TestReadWantForms(t *testing.T) {
	in := `{"text": "a", "want": ["github"], "tag": "pos", "ok": ["x"]}

{"text": "b", "want": "gmail", "tag": "kw"}
{"text": "c", "want": null, "tag": "neg"}
{"text": "d", "want": [], "tag": "neg"}
`
	cases, err := Read(strings.NewReader(in), "set.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"github"}, {"gmail"}, nil, {}}
	if len(cases) != 4 {
		t.Fatalf("%d cases", len(cases))
	}
	for i, c := range cases {
		if !slices.Equal(c.Want, want[i]) {
			t.Errorf("case %d want %v, got %v", i, want[i], c.Want)
		}
	}
	if cases[1].Line != 3 || !slices.Equal(cases[0].OK, []string{"x"}) {
		t.Errorf("line %d ok %v", cases[1].Line, cases[0].OK)
	}
}

func TestReadBadLines(t *testing.T) {
	for _, in := range []string{`{"text": `, `{"text": "a", "want": 5}`, `[1,2]`} {
		_, err := Read(strings.NewReader("\n"+in), "set.jsonl")
		if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "set.jsonl line 2") {
			t.Errorf("%q: error %v", in, err)
		}
	}
}

func TestReadReplayForms(t *testing.T) {
	in := `{"server": "google-maps", "first": "Wo ist die nächste Apotheke?", "second": "Apotheke sonntags?"}

{"skill": "humanizer", "first": "a", "second": "b"}
{"text": "Explain how ramen broth is made"}
`
	pairs, negatives, err := ReadReplay(strings.NewReader(in), "set.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []Pair{
		{Set: "set.jsonl", Line: 1, Want: Target{Name: "google-maps"}, First: "Wo ist die nächste Apotheke?", Second: "Apotheke sonntags?"},
		{Set: "set.jsonl", Line: 3, Want: Target{Skill: true, Name: "humanizer"}, First: "a", Second: "b"},
	}
	if !slices.Equal(pairs, want) {
		t.Errorf("pairs %+v, want %+v", pairs, want)
	}
	if len(negatives) != 1 || negatives[0] != (Negative{Set: "set.jsonl", Line: 4, Text: "Explain how ramen broth is made"}) {
		t.Errorf("negatives %+v", negatives)
	}
}

func TestReadReplayBadLines(t *testing.T) {
	for _, in := range []string{
		`{"server": "x", "first": "a"}`,                              // no second
		`{"server": "x", "skill": "y", "first": "a", "second": "b"}`, // both
		`{"first": "a", "second": "b"}`,                              // neither
		`{"text": "a", "server": "x"}`,                               // a negative with a label
		`{"text": `,                                                  // not JSON
		`{"first": 5}`,                                               // not a string
	} {
		_, _, err := ReadReplay(strings.NewReader("\n"+in), "pairs.jsonl")
		if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "pairs.jsonl line 2") {
			t.Errorf("%q: error %v", in, err)
		}
	}
}

// fakeRouter is a router that brings what its table says, and after
// learning a target brings it for any message that says a word learned
// for it: enough to check what Replay counts.
type fakeRouter struct {
	table   map[string][]Target
	learned map[Target][]string
}

func (f *fakeRouter) Brings(msg string) []Target {
	out := slices.Clone(f.table[msg])
	for t, ws := range f.learned {
		for _, w := range ws {
			if strings.Contains(strings.ToLower(msg), w) && !slices.Contains(out, t) {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

func (f *fakeRouter) Learn(t Target, words []catalog.LearnedWord) {
	for _, w := range words {
		f.learned[t] = append(f.learned[t], w.Label)
	}
}

func TestReplayCounts(t *testing.T) {
	maps, mail := Target{Name: "maps"}, Target{Name: "mail"}
	r := &fakeRouter{
		table: map[string][]Target{
			"Route to the Elbphilharmonie":       {maps},       // brought already: nothing learned
			"Elbphilharmonie tonight, how long?": {maps, mail}, // recalled before, not exact
			"Explain the Hustensaft ingredients": {mail},       // a negative bringing mail before
		},
		learned: map[Target][]string{},
	}
	pairs := []Pair{
		{Want: maps, First: "Route to the Elbphilharmonie", Second: "Elbphilharmonie tonight, how long?"},
		{Want: maps, First: "Wo kriege ich Hustensaft?", Second: "Noch irgendwo Hustensaft?"},
		{Want: mail, First: "Hat das Finanzamt geschrieben?", Second: "Did the tax office write?"},
	}
	negatives := []Negative{{Line: 7, Text: "Explain the Hustensaft ingredients"}, {Line: 8, Text: "A poem"}}
	rep := Replay(r, pairs, negatives)
	if rep.Recovered != 2 || rep.Recall != [2]int{1, 2} || rep.Exact != [2]int{0, 1} || rep.FalseOffers != [2]int{1, 2} {
		t.Errorf("recovered %d, recall %v, exact %v, false offers %v", rep.Recovered, rep.Recall, rep.Exact, rep.FalseOffers)
	}
	if len(rep.Missed) != 1 || rep.Missed[0].Want != mail {
		t.Errorf("missed %+v, want the tax office's pair", rep.Missed)
	}
	if len(rep.Newly) != 1 || rep.Newly[0].Target != maps || rep.Newly[0].Negative.Line != 7 {
		t.Errorf("newly brought %+v, want maps to line 7", rep.Newly)
	}
	if s := rep.Summary(); s.RecallBefore != 33.3 || s.RecallAfter != 66.7 {
		t.Errorf("summary %+v", s)
	}
}

func TestUnknownTargetsAreSaidOncePerTarget(t *testing.T) {
	pairs := []Pair{
		{Set: "p.jsonl", Line: 1, Want: Target{Name: "maps"}},
		{Set: "p.jsonl", Line: 2, Want: Target{Name: "gone"}},
		{Set: "p.jsonl", Line: 3, Want: Target{Name: "gone"}},
		{Set: "s.jsonl", Line: 1, Want: Target{Skill: true, Name: "nowhere"}},
	}
	got := Unknown(pairs, func(t Target) bool { return t == Target{Name: "maps"} })
	want := []string{
		"2 pairs want the server gone, which the catalog does not have (first at p.jsonl line 2): counted as missed",
		"1 pair wants the skill nowhere, which is not among the agent's skills (first at s.jsonl line 1): counted as missed",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Unknown:\n%q\nwant\n%q", got, want)
	}
}
