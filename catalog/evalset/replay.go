package evalset

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
)

// A replay measures how the gate and the skill scorer learn the owner's
// words (C9): each pair is a request the owner says first and a later one
// in the same words. The first, when the turn's tools did not bring its
// label, is recovered to it, and its words are learned as a turn that
// asked for the label and used it teaches; the second is routed before
// and after. Hard negatives share the pairs' words and want nothing: what
// they bring after learning and not before is a false offer learning made.

// Target is what a replay line wants: a server or a skill.
type Target struct {
	Skill bool // a skill of the scorer, else an MCP server of the gate
	Name  string
}

func (t Target) String() string {
	if t.Skill {
		return "skill " + t.Name
	}
	return t.Name
}

// Pair is one replayed pair of requests.
type Pair struct {
	Set    string // the set's name, as ReadReplay was given it
	Line   int
	Want   Target
	First  string
	Second string
}

// Negative is a hard negative: a request in the pairs' words that wants
// no server or skill.
type Negative struct {
	Set  string // the set's name, as ReadReplay was given it
	Line int
	Text string
}

// ReadReplay parses a replay set in JSON Lines: a pair is
// {"server": NAME, "first": …, "second": …} or the same with "skill", a
// hard negative {"text": …}. One file may hold both.
func ReadReplay(r io.Reader, name string) ([]Pair, []Negative, error) {
	var pairs []Pair
	var negatives []Negative
	err := eachLine(r, name, func(n int, line []byte) error {
		var raw struct {
			Server, Skill, First, Second, Text string
		}
		if err := json.Unmarshal(line, &raw); err != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s line %d: %v", name, n, err)
		}
		switch {
		case raw.Text != "" && raw.First == "" && raw.Second == "" && raw.Server == "" && raw.Skill == "":
			negatives = append(negatives, Negative{Set: name, Line: n, Text: raw.Text})
		case raw.First == "" || raw.Second == "" || (raw.Server == "") == (raw.Skill == "") || raw.Text != "":
			return jarvisbot.Errorf(jarvisbot.EINVALID,
				`%s line %d: want a pair {"server" or "skill": NAME, "first": TEXT, "second": TEXT} or a hard negative {"text": TEXT}`, name, n)
		default:
			p := Pair{Set: name, Line: n, First: raw.First, Second: raw.Second, Want: Target{Name: raw.Server}}
			if raw.Skill != "" {
				p.Want = Target{Skill: true, Name: raw.Skill}
			}
			pairs = append(pairs, p)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return pairs, negatives, nil
}

// ReadReplayFiles reads the replay sets at paths, in order, as one.
func ReadReplayFiles(paths ...string) ([]Pair, []Negative, error) {
	var pairs []Pair
	var negatives []Negative
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, jarvisbot.Errorf(jarvisbot.EINVALID, "open replay set: %w", err)
		}
		p, n, err := ReadReplay(f, path)
		f.Close()
		if err != nil {
			return nil, nil, err
		}
		pairs, negatives = append(pairs, p...), append(negatives, n...)
	}
	return pairs, negatives, nil
}

// Unknown says, one line per target, which pairs want a server or skill
// that has reports false for: such a pair cannot be brought before or
// after learning, and a user replaying their own set should know why.
func Unknown(pairs []Pair, has func(Target) bool) []string {
	var out []string
	count := map[Target]int{}
	first := map[Target]Pair{}
	var order []Target
	for _, p := range pairs {
		if has(p.Want) {
			continue
		}
		if count[p.Want] == 0 {
			first[p.Want] = p
			order = append(order, p.Want)
		}
		count[p.Want]++
	}
	for _, t := range order {
		missing := "the server " + t.Name + ", which the catalog does not have"
		if t.Skill {
			missing = "the skill " + t.Name + ", which is not among the agent's skills"
		}
		who := fmt.Sprintf("%d pairs want", count[t])
		if count[t] == 1 {
			who = "1 pair wants"
		}
		p := first[t]
		out = append(out, fmt.Sprintf("%s %s (first at %s line %d): counted as missed", who, missing, p.Set, p.Line))
	}
	return out
}

// Router is what a replay routes with.
type Router interface {
	// Brings lists the servers and skills a message brings into a turn.
	Brings(msg string) []Target
	// Learn gives t its learned words, all of them so far.
	Learn(t Target, words []catalog.LearnedWord)
}

// ReplayReport sums a replay. Index 0 of a pair of figures is before
// learning, index 1 after.
type ReplayReport struct {
	Pairs, Negatives int
	// Recovered counts the first requests that did not bring their label
	// and were recovered to it: the turns that taught.
	Recovered int
	// Recall counts second requests that brought their label; Exact
	// those that brought nothing else of its kind (no other server for a
	// server, no other skill for a skill).
	Recall, Exact [2]int
	// FalseOffers counts what the hard negatives brought, servers and
	// skills.
	FalseOffers [2]int
	// Missed are the pairs whose second request still did not bring its
	// label after learning; Newly what a hard negative brings after
	// learning and did not before.
	Missed []Pair
	Newly  []Brought
}

// Brought is a target a hard negative brings.
type Brought struct {
	Negative Negative
	Target   Target
}

// Replay runs pairs and negatives through r.
func Replay(r Router, pairs []Pair, negatives []Negative) ReplayReport {
	rep := ReplayReport{Pairs: len(pairs), Negatives: len(negatives)}
	measure := func(i int) {
		for _, p := range pairs {
			got := r.Brings(p.Second)
			if !slices.Contains(got, p.Want) {
				if i == 1 {
					rep.Missed = append(rep.Missed, p)
				}
				continue
			}
			rep.Recall[i]++
			if !slices.ContainsFunc(got, func(t Target) bool { return t.Skill == p.Want.Skill && t != p.Want }) {
				rep.Exact[i]++
			}
		}
	}
	measure(0)
	before := make([][]Target, len(negatives))
	for i, n := range negatives {
		before[i] = r.Brings(n.Text)
		rep.FalseOffers[0] += len(before[i])
	}
	learned := map[Target][]catalog.LearnedWord{}
	for _, p := range pairs {
		if slices.Contains(r.Brings(p.First), p.Want) {
			continue // nothing to recover, nothing learned
		}
		rep.Recovered++
		learned[p.Want] = MergeLearned(learned[p.Want], catalog.LearnableWords(p.First))
		r.Learn(p.Want, learned[p.Want])
	}
	measure(1)
	for i, n := range negatives {
		after := r.Brings(n.Text)
		rep.FalseOffers[1] += len(after)
		for _, t := range after {
			if !slices.Contains(before[i], t) {
				rep.Newly = append(rep.Newly, Brought{Negative: n, Target: t})
			}
		}
	}
	return rep
}

// MergeLearned adds a turn's words to what a target learned, a word known
// already counting another turn, as the store keeps them.
func MergeLearned(have, add []catalog.LearnedWord) []catalog.LearnedWord {
	for _, w := range add {
		if i := slices.IndexFunc(have, func(h catalog.LearnedWord) bool { return h.Stem == w.Stem }); i >= 0 {
			have[i].Turns++
			continue
		}
		have = append(have, w)
	}
	return have
}

// GateRouter replays against a catalog's gate: the servers it offers.
type GateRouter struct{ Catalog *catalog.Catalog }

// Brings lists the servers the gate offers for msg.
func (g GateRouter) Brings(msg string) []Target {
	var out []Target
	for _, d := range g.Catalog.View().Gate().Check(msg, nil) {
		if d.Offered {
			out = append(out, Target{Name: d.Server})
		}
	}
	return out
}

// Learn gives a server its learned words; a skill's are not the gate's.
func (g GateRouter) Learn(t Target, words []catalog.LearnedWord) {
	if !t.Skill {
		g.Catalog.SetLearned(t.Name, words)
	}
}

func (r ReplayReport) pct(n int) float64 { return pct(n, r.Pairs) }

// tenth rounds a percentage to one decimal, as the text form prints it.
func tenth(p float64) float64 { return math.Round(p*10) / 10 }

// ReplaySummary is the report's figures as JSON-friendly numbers.
type ReplaySummary struct {
	Pairs             int     `json:"pairs"`
	Recovered         int     `json:"recovered"`
	RecallBefore      float64 `json:"recall_before"`
	RecallAfter       float64 `json:"recall_after"`
	ExactBefore       float64 `json:"exact_before"`
	ExactAfter        float64 `json:"exact_after"`
	Negatives         int     `json:"hard_negatives"`
	FalseOffersBefore int     `json:"false_offers_before"`
	FalseOffersAfter  int     `json:"false_offers_after"`
}

// Summary computes the headline figures, in percent of the pairs to one
// decimal.
func (r ReplayReport) Summary() ReplaySummary {
	return ReplaySummary{
		Pairs: r.Pairs, Recovered: r.Recovered,
		RecallBefore: tenth(r.pct(r.Recall[0])), RecallAfter: tenth(r.pct(r.Recall[1])),
		ExactBefore: tenth(r.pct(r.Exact[0])), ExactAfter: tenth(r.pct(r.Exact[1])),
		Negatives: r.Negatives, FalseOffersBefore: r.FalseOffers[0], FalseOffersAfter: r.FalseOffers[1],
	}
}

// Write prints the report for a person: the figures, then the second
// requests still missed and what learning newly brought to a negative.
func (r ReplayReport) Write(w io.Writer) {
	fmt.Fprintf(w, "pairs:                 %d (%d first requests missed and recovered)\n", r.Pairs, r.Recovered)
	fmt.Fprintf(w, "recall, second request: %.1f%% -> %.1f%% (%d -> %d)\n", r.pct(r.Recall[0]), r.pct(r.Recall[1]), r.Recall[0], r.Recall[1])
	fmt.Fprintf(w, "exact, second request:  %.1f%% -> %.1f%% (%d -> %d)\n", r.pct(r.Exact[0]), r.pct(r.Exact[1]), r.Exact[0], r.Exact[1])
	fmt.Fprintf(w, "hard negatives:        %d, bringing %d -> %d servers and skills\n", r.Negatives, r.FalseOffers[0], r.FalseOffers[1])
	for _, p := range r.Missed {
		fmt.Fprintf(w, "\nMISS %s line %d [%s] %q\n", p.Set, p.Line, p.Want, p.Second)
	}
	for _, b := range r.Newly {
		fmt.Fprintf(w, "\nNEW %s line %d %q brings %s\n", b.Negative.Set, b.Negative.Line, b.Negative.Text, b.Target)
	}
}
