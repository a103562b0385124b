package catalog

import (
	"math"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot/internal/words"
)

// The gate learns the owner's words (C9). When a turn recovers a miss (the
// model asked for a service the gate did not offer, C8) and then uses it,
// the distinctive words of the owner's message become evidence for that
// service, as its card's words are: the same request, or one in the same
// words, is offered it next time with no round trip. They are stored per
// installation (store.LearnedWords), shown and removable (`mcp show`,
// `mcp forget`), and offer only what the agent may have: learning adds
// evidence, never a grant.

// LearnedWord is one word learned for a server: its stem as the gate
// indexes it, as the owner wrote it, and from how many turns.
type LearnedWord struct {
	Stem  string
	Label string
	Turns int
	// Ignored counts the turns since its last use that were offered its
	// server (or skill) because of it and used neither: the word weighs
	// less for each (Share), and the store drops it after a few.
	Ignored int
}

// Share is the part of its full weight a learned word gives as evidence:
// all of it until an offer it brought is ignored, then half, then a
// quarter. One ignored offer may be chance (the owner changed their
// mind); two say the word means less than it seemed; the third drops it
// (store.MaxIgnored). The gate and the skill scorer weigh a learned word
// by this one number.
func (l LearnedWord) Share() float64 {
	return 1 / float64(uint64(1)<<min(max(l.Ignored, 0), 16))
}

// Weight is full times Share, rounded up, for weights that are whole
// numbers (the gate's): a word ignored once or twice no longer offers a
// server alone but still supports other evidence until it is dropped.
func (l LearnedWord) Weight(full int) int {
	return int(math.Ceil(float64(full) * l.Share()))
}

// LearnedEvidence are the learned words, as the owner wrote them, that a
// decision rests on (EvLearned): what an offer the model then ignores
// counts against (C9).
func (d *Decision) LearnedEvidence() []string {
	var out []string
	for _, e := range d.Evidence() {
		if e.Kind == EvLearned && !slices.Contains(out, e.Term) {
			out = append(out, e.Term)
		}
	}
	return out
}

// MaxLearnedPerMessage bounds what one message teaches.
const MaxLearnedPerMessage = 6

// LearnableWords are the words of a message the gate may learn: its
// content words (not function, generic or everyday ones: "today" or
// "send" point at no service), each once, at most MaxLearnedPerMessage,
// in the message's order.
func LearnableWords(text string) []LearnedWord {
	var z words.Tokenizer
	lex := words.Default()
	var out []LearnedWord
	for _, t := range z.Tokenize(text) {
		if len(t.Stem) < 3 || isNumber(t.Stem) || lex.Class(t.Stem) != words.Content {
			continue
		}
		if slices.ContainsFunc(out, func(l LearnedWord) bool { return l.Stem == t.Stem }) {
			continue
		}
		out = append(out, LearnedWord{Stem: strings.Clone(t.Stem), Label: strings.Clone(t.Fold), Turns: 1})
		if len(out) == MaxLearnedPerMessage {
			break
		}
	}
	return out
}

// SetLearned replaces the words learned for a server; they stay with it
// across its reconnects (SetServer), and apply to a server added later.
func (c *Catalog) SetLearned(server string, learned []LearnedWord) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.learned == nil {
		c.learned = map[string][]LearnedWord{}
	}
	if len(learned) == 0 {
		delete(c.learned, server)
	} else {
		c.learned[server] = slices.Clone(learned)
	}
	c.view = nil
}

// addLearned indexes a server's learned words as evidence of their own
// kind, each with the weight a content word of its card has, and the words
// that mean the same (so "chemist" finds what "pharmacy" taught).
func (b *gateBuilder) addLearned(si int32, s Server) {
	for _, l := range s.Learned {
		if l.Stem == "" {
			continue
		}
		b.word(si, l.Stem, l.Label, "", EvLearned, l.Weight(weightStrong))
	}
}
