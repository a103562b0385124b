package skills

import (
	"cmp"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/lexrank"
	"github.com/jarvisbot/jarvisbot/internal/words"
)

// The scorer learns the owner's words (C9), as the MCP gate does: when the
// model asked for a skill the scorer did not bring and then used it, the
// distinctive words of the owner's message are kept for that skill
// (store.LearnedWords) and count from then on like a trigger word its
// author listed. They are indexed apart from the author's words, so that
// what they add is known: a skill whose own words would not enter the
// turn may enter on learned words, but only as one the model can decline
// (EntryJoin), never taking the turn over by itself. A learned word is
// the owner's word from one earlier request, and the same word in another
// request may want something else ("Bewerbung" to be rewritten once, to be
// filed the next time); an instruction-only skill that took the turn over
// would be followed with no one deciding. Background skills stay offered
// by name only (EntryFor), whatever their words.

// WithLearned returns list with each skill's learned words, by skill
// name, on a copy of the skill: the skills of a list may be shared, and
// are never changed.
func WithLearned(list []*Skill, learned map[string][]catalog.LearnedWord) []*Skill {
	if len(learned) == 0 {
		return list
	}
	out := slices.Clone(list)
	for i, s := range out {
		if ws := learned[s.Name]; len(ws) > 0 {
			c := *s
			c.Learned = ws
			out[i] = &c
		}
	}
	return out
}

// learnedIndex indexes the skills' learned words, each skill one
// document; nil when no skill has any.
func learnedIndex(list []*Skill) *lexrank.Index {
	docs := make([]lexrank.Doc, len(list))
	found := false
	for i, s := range list {
		if len(s.Learned) == 0 {
			continue
		}
		found = true
		// The owner's own words, as listed words are: one of them is
		// evidence by itself. Not paraphrased: the thesaurus's near
		// words of a word the owner used once are a guess too far. A
		// word whose offers were ignored weighs its share (one field
		// per share).
		byShare := map[float64][]string{}
		var shares []float64
		for _, l := range s.Learned {
			sh := l.Share()
			if _, ok := byShare[sh]; !ok {
				shares = append(shares, sh)
			}
			byShare[sh] = append(byShare[sh], l.Label)
		}
		for _, sh := range shares {
			docs[i].Fields = append(docs[i].Fields, lexrank.Field{Text: strings.Join(byShare[sh], " \n "), Weight: weightLearned * sh, Trigger: true})
		}
	}
	if !found {
		return nil
	}
	return lexrank.New(docs)
}

// withLearned ranks with the skills' learned words added to their own
// (see the top of this file): the score is the sum, and a skill whose own
// words stay below EnterAt joins at most.
func (r *Ranker) withLearned(msg string, own []lexrank.Hit, out []Match) []Match {
	var buf [8]lexrank.Hit
	learned := r.learned.Rank(msg, buf[:0])
	start := len(out)
	at := make(map[int]int, len(own)+len(learned))
	byDoc := make(map[int]lexrank.Hit, len(own))
	for _, h := range own {
		at[h.Doc] = len(out)
		byDoc[h.Doc] = h
		out = append(out, r.match(h))
	}
	if len(learned) == 0 {
		return out
	}
	// As in the MCP gate, a message that asks for knowledge ("Why …",
	// "the history of …", "how do you …") is no request the owner taught
	// a skill; one that asks for a text may well be.
	if catalog.AsksForKnowledge(msg) {
		return out
	}
	stems := messageStems(msg)
	for _, h := range learned {
		s := r.skills[h.Doc]
		i, ok := at[h.Doc]
		if !ok {
			i = len(out)
			out = append(out, Match{Skill: s})
		}
		o := byDoc[h.Doc]
		m := &out[i]
		m.Score = o.Score + h.Score
		m.Words = int(o.Matched + h.Matched)
		m.Weak = m.Words < 2 && o.Strong+h.Strong == 0
		m.Learned = matchedLearned(s, stems)
		m.Entry = EntryFor(s, m.Score)
		if m.Entry != EntryNone && o.Score < EnterAt {
			// Its own words would not bring it: its learned words bring
			// it alone, only as the gate lets them (catalog.LearnedAlone).
			switch {
			case !catalog.LearnedAlone(msg, isLearned(s), len(m.Learned) > 1 || o.Matched > 0):
				m.Entry = EntryNone
			case m.Entry == EntryTakeOver:
				m.Entry = EntryJoin
			}
		}
	}
	slices.SortStableFunc(out[start:], func(a, b Match) int { return cmp.Compare(b.Score, a.Score) })
	return out
}

// messageStems are the stems of a message's words.
func messageStems(msg string) map[string]bool {
	var z words.Tokenizer
	set := map[string]bool{}
	for _, t := range z.Tokenize(msg) {
		set[strings.Clone(t.Stem)] = true
	}
	return set
}

// isLearned reports whether a stem is one of the skill's learned words or
// of the same meaning as one.
func isLearned(s *Skill) func(stem string) bool {
	lex := words.Default()
	return func(stem string) bool {
		for _, l := range s.Learned {
			if l.Stem == stem || slices.Contains(lex.Related(l.Stem), stem) {
				return true
			}
		}
		return false
	}
}

// matchedLearned are the skill's learned words that the message says, or
// says in a word of the same meaning, as the owner wrote them.
func matchedLearned(s *Skill, stems map[string]bool) []string {
	var out []string
	lex := words.Default()
	for _, l := range s.Learned {
		if stems[l.Stem] || slices.ContainsFunc(lex.Related(l.Stem), func(rel string) bool { return stems[rel] }) {
			out = append(out, l.Label)
		}
	}
	return out
}
