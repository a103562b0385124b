package catalog

import (
	"github.com/jarvisbot/jarvisbot/internal/words"
)

// paraphrase teaches the gate the words a person uses in place of one of a
// server's words (issue 15, C5), from the thesaurus generated offline
// (internal/words/gen/thesaurus); it runs when the gate is built, never per
// message.
//
//   - The same word in German ("Freitag" for a card's "Friday",
//     "Wegbeschreibung" for a tool's "directions") weighs what the word
//     itself weighs, as the glossary's translations do: tool names and
//     descriptions are mostly English, requests often German.
//   - An inflected form ("replied" for a card's "reply") weighs the same
//     too, except for tool words: a tool name is an identifier ("take" of
//     take_screenshot), and "took" would widen exactly the words the gate
//     must keep narrow. Tool words take no synonyms either.
//   - A derived word, the same idea in another part of speech ("far" and
//     "nearest" for a tool's "distance", "remember" for a server called
//     "Memory"), is how people ask for what a tool names with a noun: it
//     joins a server without a card as a description word, for tool
//     words and the server's one-word name too (paraphraseName). Weak
//     like a synonym: "How far is the moon?" is no route, but with a
//     second word for the same server ("how far away is this address")
//     it offers.
//   - A synonym or near word ("answered" for "reply", "Saturday" for
//     "Friday") is weaker evidence: it joins a server without a card as a
//     description word (weight 1, at most one per turn), so it tips a
//     server that has another signal but never offers one alone. The gate
//     counts in whole points, where two loose paraphrases would already
//     offer ("Frage" is an issue, "Zusammenfassung" ends in "Fassung", a
//     release). A server with a card has words its author chose; its
//     paraphrases reach the turn through its manual, which the skill
//     scorer ranks with the same thesaurus (Plan.Turn).
//
// A server's own name is not paraphrased, save for its derived words:
// monday.com's "monday" is no weekday.
func (b *gateBuilder) paraphrase(si, of int32, stem, label, source string, kind EvidenceKind, w int) {
	if kind != EvCard && kind != EvDesc && kind != EvTool {
		return // names are names
	}
	if _, isName := b.names[stem]; isName {
		return
	}
	lex := b.g.lex
	words.DefaultThesaurus().EachRelated(stem, func(rel string, how words.Relation) {
		if lex.IsVerb(rel) || b.otherNames[rel] {
			return // a verb counts in a pair only; a name belongs to its server
		}
		cw := classWeight(lex.Class(rel))
		if cw == 0 {
			return
		}
		k, rw := kind, min(w, cw)
		switch {
		case how == words.Same:
		case how == words.Derived && !b.carded:
			k, rw = EvDesc, weightWeak
		case kind == EvTool:
			return
		case how == words.Form:
		case b.carded:
			return
		default:
			k, rw = EvDesc, weightWeak
		}
		// The label says which of the server's words the paraphrase
		// stands for, for `route` and `catalog card`.
		b.uni.Add(rel, b.standsFor(b.term(si, rel, rel+" (for "+label+")", source, k, rw), of))
	})
}

// paraphraseName gives a server without a card the derived words of its
// one-word name ("remember" for "Memory"), as weak description words: a
// server named for what it does is asked for with the verb.
func (b *gateBuilder) paraphraseName(si int32, stem, label string) {
	lex := b.g.lex
	of := int32(-1) // the name is matched by its key: the first derived word stands for it
	for rel := range words.DefaultThesaurus().Words(stem, words.Derived) {
		if lex.IsVerb(rel) || b.otherNames[rel] || classWeight(lex.Class(rel)) == 0 {
			continue
		}
		id := b.term(si, rel, rel+" (for "+label+")", "", EvDesc, weightWeak)
		if of < 0 {
			of = id
		}
		b.uni.Add(rel, b.standsFor(id, of))
	}
}

// standsFor records that a new paraphrase term stands for the server word
// of, so that paraphrases of one word count once a turn; a term that is
// already a word of the server in its own right keeps counting alone.
func (b *gateBuilder) standsFor(id, of int32) int32 {
	if t := &b.g.terms[id]; t.of == id && id != of && b.g.terms[of].server == t.server {
		t.of = of
	}
	return id
}
