package catalog

import "github.com/jarvisbot/jarvisbot/internal/words"

// paraphrase teaches the gate the words a person uses in place of one of a
// server's words (issue 15, C5): the thesaurus's translations ("Freitag"
// for a card's "Friday", "Wegbeschreibung" for a tool's "directions")
// weigh what the word itself weighs, as the glossary's do; its synonyms
// and near words ("answered" for "reply", "Saturday" for "Friday") weigh
// weightWeak, so a paraphrase alone never offers a server but adds to a
// second signal. The table is generated offline (internal/words/gen);
// this runs when the gate is built, never per message. A server's own
// name is not paraphrased: monday.com's "monday" is no weekday.
func (b *gateBuilder) paraphrase(si int32, stem, label, source string, kind EvidenceKind, w int) {
	if kind == EvName || kind == EvTitleWord {
		return
	}
	if _, isName := b.g.names[stem]; isName {
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
		rw := weightWeak
		if how == words.Translation {
			rw = min(w, cw)
		}
		// The label says which of the server's words the paraphrase
		// stands for, for `route` and `catalog card`.
		b.index(b.g.uni, rel, b.term(si, rel, rel+" (for "+label+")", source, kind, rw))
	})
}
