package catalog

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

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
// kind, and the words that mean the same (so "chemist" finds what
// "pharmacy" taught). They are indexed at a card word's weight, so that a
// word the owner taught stays theirs where a tool name shares it; what
// one weighs in a turn is decided there (weighLearned).
func (b *gateBuilder) addLearned(si int32, s Server) {
	for _, l := range s.Learned {
		if l.Stem == "" {
			continue
		}
		b.word(si, l.Stem, l.Label, taughtBy(l.Turns), EvLearned, l.Weight(weightStrong))
	}
}

// taughtBy is where a learned word came from, as route shows it after
// "from": the owner sees how many of their turns taught it.
func taughtBy(turns int) string {
	if turns <= 1 {
		return "1 turn"
	}
	return strconv.Itoa(turns) + " turns"
}

// A learned word says what a message is about, not that it asks for the
// server: "ramen" taught maps with "Any good ramen close to the
// station?", and "Explain how ramen broth is made" says it too. So a
// learned word weighs as an everyday word (1), and adds up, as those do,
// with a second word for the server from another place of the message:
// another learned word ("bike" and "brakes") or the gate's own evidence
// ("ramen" and "close to"). A learned word alone offers the server only
// in a message about something of the owner's: one that names a
// particular thing ("the landlord", "my cookbook", "das Elterngespräch"),
// asks for something (my, I, please, a request's verb first) or asks
// where something is ("Gibt es noch irgendwo Hustensaft?"), and
// does not say the word of a kind in general ("an accountant", "a better
// landlord"). A message that asks for knowledge or for a text to be made
// ("Why ...", "the history of ...", "a poem about ...", "how do you
// ...", "usually") is no request to any service the owner taught: there
// learned words count for nothing, and only the server's own words can
// offer it.

// learnedRefusal says why a server's learned words did not offer it.
type learnedRefusal uint8

const (
	_ learnedRefusal = iota
	// learnedInGeneral: the message asks for knowledge or a text to be
	// made.
	learnedInGeneral
	// learnedOfAKind: a learned word alone, said of a kind ("an
	// accountant").
	learnedOfAKind
	// learnedUnowned: a learned word alone, in a message that names
	// nothing particular and asks for nothing.
	learnedUnowned
	// learnedIgnored: learned words alone whose recent offers the turns
	// left unused (LearnedWord.Ignored): they support other evidence
	// but no longer offer the server by themselves.
	learnedIgnored
)

func (r learnedRefusal) String() string {
	switch r {
	case learnedInGeneral:
		return "learned words, in a request for knowledge or for a text"
	case learnedOfAKind:
		return "a learned word alone, said of a kind in general"
	case learnedIgnored:
		return "learned words alone, whose recent offers went unused"
	}
	return "a learned word alone, in a message that names nothing of the owner's and asks for nothing"
}

// rule is the rule the refusal follows, for Because.
func (r learnedRefusal) rule() string {
	switch r {
	case learnedInGeneral:
		return "learned words count only in requests about the owner's things"
	case learnedIgnored:
		return "a learned word whose offer a turn left unused no longer offers a server by itself"
	}
	return "a learned word alone offers a server in a request about a thing of the owner's (the, my, please, a verb first, where)"
}

// learnedCues is what a message says beside its learned words, read at
// most once a turn: 0 not read yet, -1 no, 1 yes.
type learnedCues struct {
	general, owned int8
}

func cue(yes bool) int8 {
	if yes {
		return 1
	}
	return -1
}

// weighLearned adds a server's learned words to its decision, whose score
// and evidence so far are the gate's own.
func (g *Gate) weighLearned(sc *scratch, toks []words.Token, si int, d *Decision, cues *learnedCues) {
	if cues.general == 0 {
		cues.general = cue(askedInGeneral(g.lex, sc.stop, toks))
	}
	if cues.general == 1 {
		if !d.evident {
			d.learnedOut = learnedInGeneral
		}
		return
	}
	n := int(sc.learnN[si])
	d.Score += n * weightWeak
	if d.evident {
		return
	}
	// Two places of the message: a second learned word, or the gate's own
	// evidence beside the learned one.
	at := sc.learnAt[si]
	from := sc.from[si]
	spread := sc.spread[si] || n > 1 && at[0] != at[1] || from >= 0 && from != at[0]
	if d.Score >= OfferAt && (sc.strong[si] || spread) {
		d.evident, d.unasked = true, false
		return
	}
	if sc.learnFresh[si] == 0 {
		d.learnedOut = learnedIgnored
		return
	}
	for i := range min(n, 2) {
		if ofAKind(sc.stop, toks, int(at[i])) {
			d.learnedOut = learnedOfAKind
			return
		}
	}
	if cues.owned == 0 {
		cues.owned = cue(ownersMatter(g.lex, sc.stop, toks))
	}
	if cues.owned < 0 {
		d.learnedOut = learnedUnowned
		return
	}
	d.evident, d.unasked = true, false
	d.Score = max(d.Score, OfferAt)
}

// phraseSpan is how many words may stand between a determiner and the
// word it belongs to: "the quiet prospects", "the Müller GmbH lead".
const phraseSpan = 2

// ofAKind reports whether the word at position at is said of a kind in
// general: an indefinite article opens its phrase ("an accountant", "a
// better landlord", "eine Apotheke").
// stop marks the function words of the message.
func ofAKind(stop []bool, toks []words.Token, at int) bool {
	for i := at - 1; i >= 0 && i >= at-1-phraseSpan; i-- {
		if indefiniteArticle(toks[i].Fold) {
			return true
		}
		if stop[i] {
			return false
		}
	}
	return false
}

func indefiniteArticle(fold string) bool {
	switch fold {
	case "a", "an", "ein", "eine", "einen", "einem", "einer", "eines":
		return true
	}
	return false
}

// namesParticular reports whether a message names a particular thing: a
// definite, demonstrative or possessive determiner before a word ("the
// landlord", "das Elterngespräch", "my errands", "zum Flughafen"), or a
// name's genitive ("Lena's branch").
// stop marks the function words of the message.
func namesParticular(stop []bool, toks []words.Token, lex *words.Lexicon) bool {
	for i := 0; i+1 < len(toks); i++ {
		if stop[i+1] {
			continue
		}
		f := toks[i].Fold
		if determiner(f) || lex.Self(toks[i].Stem) ||
			f == "s" && i > 1 && toks[i-1].Upper { // "Lena's", not "What's"
			return true
		}
	}
	return false
}

// determiner reports the definite, demonstrative and possessive
// determiners of English and German, and the German prepositions that
// hold a definite article ("zum", "im").
func determiner(fold string) bool {
	switch fold {
	case "the", "this", "that", "these", "those", "my", "your", "our", "his", "her", "their", "its",
		"der", "die", "das", "den", "dem", "des", "dieser", "diese", "dieses", "diesen", "diesem",
		"am", "im", "zum", "zur", "vom", "beim", "ins", "ans":
		return true
	}
	for _, p := range [...]string{"mein", "dein", "sein", "ihr", "unser", "euer", "eur"} {
		if strings.HasPrefix(fold, p) && len(fold) <= len(p)+2 {
			return true
		}
	}
	return false
}

// askedInGeneral reports whether a message asks for knowledge or for a
// text to be made rather than for something of the owner's: it asks why
// or for an explanation first ("Why ...", "Explain ...", "Warum ..."),
// asks how one does a thing ("how do you", "how to", German "man"), asks
// for what is known of a subject (its history, rules, meaning, tips), asks
// for a text to be made ("a poem", "ein Gedicht", "a funny name"), or
// speaks of what holds in general ("usually", "roughly", "ungefähr").
// Grammar and kinds of request, not a service's words.
// stop marks the function words of the message.
func askedInGeneral(lex *words.Lexicon, stop []bool, toks []words.Token) bool {
	return askedFor(lex, stop, toks, true)
}

// AsksForKnowledge reports whether a message asks for knowledge rather
// than for something of the owner's, as the gate reads it for learned
// words (askedInGeneral), a request for a text aside: the skill scorer
// does not count learned words in such a message, though making texts
// is what many skills are for.
func AsksForKnowledge(msg string) bool {
	lex, toks, stop := markStops(msg)
	return askedFor(lex, stop, toks, false)
}

// LearnedAlone reports whether learned words may bring what they were
// learned for by themselves, by the gate's rule for a learned word alone
// (weighLearned): the message says none of them of a kind in general,
// and is about something of the owner's (names a particular thing, asks
// for something, asks where) unless supported, that is a second word for
// the same thing stands at another place of the message (another learned
// word, or one of its own), as "two places" are in the gate. said reports
// whether a word of the message (its stem) is one of the learned words.
// The skill scorer asks it for a skill its own words would not bring.
func LearnedAlone(msg string, said func(stem string) bool, supported bool) bool {
	lex, toks, stop := markStops(msg)
	n := 0
	for i, t := range toks {
		if !said(t.Stem) {
			continue
		}
		if ofAKind(stop, toks, i) {
			return false
		}
		if n++; n == 2 {
			break
		}
	}
	// A skill the scorer brings costs the turn its text only, and the
	// model may decline it: beside the gate's cues, a message that is no
	// question counts as the owner's too, a request or the owner telling
	// how their things stand ("Winterreifen sind erledigt"), where the
	// gate, whose offer costs a server's tool schemas, does not take an
	// opinion ("Bouldering is fun") for a request.
	return supported || !words.Question(msg, toks) || ownersMatter(lex, stop, toks)
}

// ownersMatter reports whether a message is about something of the
// owner's: it names a particular thing, asks for something or asks where
// something is.
func ownersMatter(lex *words.Lexicon, stop []bool, toks []words.Token) bool {
	return namesParticular(stop, toks, lex) || lex.Asks(toks) || words.AsksWhere(toks)
}

// markStops tokenizes a message and marks its function words, as the
// gate does for a turn.
func markStops(msg string) (*words.Lexicon, []words.Token, []bool) {
	var z words.Tokenizer
	lex := words.Default()
	toks := z.Tokenize(msg)
	stop := make([]bool, len(toks))
	for i, t := range toks {
		stop[i] = lex.Class(t.Stem) == words.Stop
	}
	return lex, toks, stop
}

// askedFor is askedInGeneral, with a request for a text counted when
// texts is set.
func askedFor(lex *words.Lexicon, stop []bool, toks []words.Token, texts bool) bool {
	gw := generalWords()
	for i, t := range toks {
		switch gw[t.Stem] {
		case generalOpener:
			if i == 0 {
				return true
			}
		case generalKnowledge, generalHedge:
			return true
		case generalText:
			if texts && ofAKind(stop, toks, i) {
				return true
			}
		}
		switch t.Fold {
		case "man": // German's "one": "wie macht man", "kann man"
			if i > 0 && lex.Class(toks[i-1].Stem) != words.Content {
				return true
			}
		case "how":
			if i+2 < len(toks) && (toks[i+2].Fold == "you" || toks[i+2].Fold == "one") ||
				i+1 < len(toks) && toks[i+1].Fold == "to" {
				return true
			}
		}
	}
	return false
}

type generalKind uint8

const (
	_ generalKind = iota
	generalOpener
	generalKnowledge
	generalText
	generalHedge
)

// generalWords are the stems of askedInGeneral's words, English and
// German.
var generalWords = sync.OnceValue(func() map[string]generalKind {
	m := map[string]generalKind{}
	for kind, list := range map[generalKind][]string{
		generalOpener: {"why", "explain", "define", "warum", "wieso", "weshalb", "erkläre", "erklär", "definiere"},
		generalKnowledge: {"history", "origin", "meaning", "definition", "difference", "rules", "facts", "tips", "advice",
			"Geschichte", "Herkunft", "Bedeutung", "Definition", "Unterschied", "Regeln", "Fakten", "Tipps", "Ratschläge"},
		generalText: {"poem", "story", "joke", "song", "lyrics", "essay", "speech", "slogan", "riddle", "name", "title",
			"Gedicht", "Witz", "Lied", "Aufsatz", "Rede", "Spruch", "Rätsel", "Namen", "Titel"},
		generalHedge: {"usually", "generally", "typically", "normally", "roughly", "approximately",
			"normalerweise", "generell", "typischerweise", "ungefähr", "allgemein"},
	} {
		for _, w := range list {
			m[words.Stem(words.Key(w))] = kind
		}
	}
	return m
})
