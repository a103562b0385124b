package catalog

import (
	"strings"

	"github.com/jarvisbot/jarvisbot/internal/words"
)

// A server that keeps facts about its owner (a memory or knowledge-graph
// server added by hand) says so in words people do not use when they ask
// it: its tools speak of entities, observations and a knowledge graph;
// its owner says "remember that I take my coffee black", "merk dir, dass
// ich Spinat nicht mag", "what do you know about my sister?". The
// verb of keeping alone is one everyday word and offers nothing ("Do you
// remember the 90s?"); the owner telling a fact about themselves, or
// asking about someone or something of theirs, beside it is the second
// signal (SPEC C5, issue 15). It counts only for servers whose own words
// are about remembering or knowledge, decided through the thesaurus.

// keepAnchors are the ideas a keeping server's own words are about:
// remembering and knowledge, with their synonyms and translations
// (memory, Gedächtnis, merken, Wissen).
var keepAnchors = []string{"remember", "knowledge"}

// askAnchors are the verbs by which the owner asks to keep or recall a
// fact, in English and German; their synonyms count too ("recall",
// "merken"). noteAnchors count in their own forms only: a synonym of
// "note" is a tone, and "forget" asks for keeping only when negated
// ("don't forget", "vergiss nicht"), never in "I forgot my umbrella".
var (
	askAnchors    = []string{"remember", "know", "wissen"}
	noteAnchors   = []string{"note", "notieren"}
	forgetAnchors = []string{"forget", "vergessen"}
	// negations: "don't" comes as "don" and "t" from the tokenizer.
	negations = []string{"not", "never", "don", "t", "nicht", "nie", "niemals"}
)

// keepWords is what the gate knows about keeping servers, built with it.
type keepWords struct {
	server []bool          // per view server: its own words are about remembering
	verbs  map[string]bool // stems that ask to keep or recall
	forget map[string]bool // stems that ask to keep when negated
	neg    map[string]bool
}

// related adds the stems of anchors and the forms (and, with syn, the
// synonyms and translations) the thesaurus gives them.
func related(th *words.Thesaurus, anchors []string, syn bool, into map[string]bool) {
	for _, a := range anchors {
		s := words.Stem(a)
		into[s] = true
		th.EachRelated(s, func(rel string, how words.Relation) {
			if how == words.Same || how == words.Form || syn && how == words.Synonym {
				into[rel] = true
			}
		})
	}
}

// buildKeep marks the servers of g whose own words (names, card, tool and
// description words; not the paraphrases the gate added for them) are
// about remembering and knowledge: two different words that are, or
// relate through the thesaurus to, the words of remembering and knowledge
// ("memory" and "knowledge graph"). One is not enough: a to-do app's
// "Erinnerung" is a reminder, a reasoning server's "thought" is no fact
// of the owner's.
func buildKeep(g *Gate) keepWords {
	th := words.DefaultThesaurus()
	k := keepWords{server: make([]bool, len(g.servers)), verbs: map[string]bool{}, forget: map[string]bool{}, neg: map[string]bool{}}
	about := map[string]bool{}
	related(th, keepAnchors, true, about)
	related(th, askAnchors, true, k.verbs)
	related(th, noteAnchors, false, k.verbs)
	related(th, forgetAnchors, false, k.forget)
	for _, n := range negations {
		k.neg[words.Stem(n)] = true
	}
	keeps := func(stem string) bool {
		found := about[stem]
		th.EachRelated(stem, func(rel string, how words.Relation) {
			if (how <= words.Synonym || how == words.Derived) && about[rel] {
				found = true
			}
		})
		return found
	}
	first := make([]string, len(g.servers)) // per server: its first word about keeping
	for id := range g.terms {
		t := &g.terms[id]
		for w := range strings.FieldsSeq(t.phrase) {
			// A server that searches what was said (past.go) recalls;
			// it keeps nothing the owner tells.
			if t.of != int32(id) || k.server[t.server] || g.past.server[t.server] || w == first[t.server] || !keeps(w) {
				continue
			}
			if first[t.server] == "" {
				first[t.server] = w
			} else {
				k.server[t.server] = true
			}
		}
	}
	return k
}

// fact finds, in a message, a verb that asks the assistant to keep or
// recall a fact, and a first-person word after it: "remember that I
// prefer …", "what do you know about my …", "vergiss nicht, dass ich …".
// The verb is addressed to the assistant: it opens the message (after a
// negation or a "please" at most) or stands beside "you" or "du". "I
// remember my first car", "let the team know I'm late" and "ich merke
// meine Fehler" tell of the owner's own knowing. It returns the verb and
// the first-person word, ok false when there is none.
func (k *keepWords) fact(lex *words.Lexicon, toks []words.Token) (verb, self string, ok bool) {
	for i, t := range toks {
		asks := k.verbs[t.Stem]
		if !asks && k.forget[t.Stem] {
			asks = i > 0 && k.neg[toks[i-1].Stem] || i > 1 && k.neg[toks[i-2].Stem] ||
				i+1 < len(toks) && k.neg[toks[i+1].Stem]
		}
		if !asks || !k.addressed(lex, toks, i) {
			continue
		}
		for _, u := range toks[i+1:] {
			if lex.Self(u.Stem) {
				return t.Fold, u.Fold, true
			}
		}
	}
	return "", "", false
}

// addressed reports whether the verb at i is said to the assistant: only
// negations, polite words and function words before it ("don't",
// "please"; no "I"), or "you"/"du" within two words of it ("what do you
// know", "weißt du", "can you remember").
func (k *keepWords) addressed(lex *words.Lexicon, toks []words.Token, i int) bool {
	opens := true
	for _, t := range toks[:i] {
		if lex.Self(t.Stem) || !k.neg[t.Stem] && !lex.Addresses(t.Stem) && lex.Class(t.Stem) != words.Stop {
			opens = false
			break
		}
	}
	if opens {
		return true
	}
	for _, t := range toks[max(0, i-2):min(len(toks), i+2)] {
		if lex.Addresses(t.Stem) {
			return true
		}
	}
	return false
}
