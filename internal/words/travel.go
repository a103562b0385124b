package words

import "strings"

// People ask the way by naming its two ends, not by saying "route": "from
// Cologne to Bonn", "von Köln nach Bonn", "zwischen Berlin und Potsdam".
// The ends are names (capitalised) and neither is a time ("from Monday to
// Friday"), nor written in lower case ("from time to time"). And they ask
// for what is near a place in phrases of several words ("close to", "in
// der Nähe", "near by") whose parts alone say nothing.

// routeWords are the words that open a route and the word that leads to
// its other end.
var routeWords = [...]struct{ from, to string }{
	{"from", "to"},
	{"von", "nach"},
	{"vom", "nach"},
	{"zwischen", "und"},
	{"between", "and"},
}

// routeNameMax is how many words one end of a route may take ("New York").
const routeNameMax = 3

// RouteAt returns the span [start, end) of a route of two named places
// ("from X to Y"), or -1, -1.
func RouteAt(toks []Token) (start, end int) {
	for i := 0; i+3 < len(toks); i++ {
		for _, rw := range routeWords {
			if toks[i].Fold != rw.from {
				continue
			}
			n := namedRun(toks, i+1)
			if n == 0 || i+1+n >= len(toks) || toks[i+1+n].Fold != rw.to {
				continue
			}
			if m := namedRun(toks, i+2+n); m > 0 {
				return i, i + 2 + n + m
			}
		}
	}
	return -1, -1
}

// destinationWords lead to the end of a way ("to the Marienplatz", "nach
// Potsdam"); the article a place may take in English is allowed, not in
// German, where "nach dem Essen" is a time.
func destinationWord(fold string) bool {
	switch fold {
	case "to", "nach", "zum", "zur", "towards":
		return true
	}
	return false
}

// DestinationAt returns the span [start, end) of the one named end of a
// way ("to Lyon", "nach Potsdam", "to the Marienplatz"), or -1, -1.
func DestinationAt(toks []Token) (start, end int) {
	for i := 1; i+1 < len(toks); i++ {
		if !destinationWord(toks[i].Fold) {
			continue
		}
		at := i + 1
		if toks[i].Fold == "to" && toks[at].Fold == "the" && at+1 < len(toks) {
			at++
		}
		if n := namedRun(toks, at); n > 0 {
			return i, at + n
		}
	}
	return -1, -1
}

// AsksWhere reports a question for where something is: "where", "wo", "is
// there", "are there", "gibt es".
func AsksWhere(toks []Token) bool {
	if len(toks) == 0 {
		return false
	}
	switch toks[0].Fold {
	case "where", "wo":
		return true
	case "is", "are":
		return len(toks) > 1 && toks[1].Fold == "there"
	case "gibt":
		return len(toks) > 1 && toks[1].Fold == "es"
	}
	return false
}

// namedRun returns how many capitalised words, none of them a time, stand
// from position at (at most routeNameMax).
func namedRun(toks []Token, at int) int {
	n := 0
	for at+n < len(toks) && n < routeNameMax && toks[at+n].Upper && !isTime(toks[at+n].Stem) {
		n++
	}
	return n
}

// isTime reports a word of a family of times (weekdays, months, parts of
// a day), which the thesaurus knows.
func isTime(stem string) bool {
	return DefaultThesaurus().Has(stem, Family)
}

// nearPhrases are the phrases that say "near" in several words.
var nearPhrases = [...][]string{
	{"close", "to"},
	{"near", "by"},
	{"in", "der", "nahe"},
	{"in", "die", "nahe"},
	{"nahe", "bei"},
	{"nahe", "am"},
	{"in", "the", "vicinity"},
	{"in", "meiner", "nahe"},
	{"around", "the", "corner"},
	{"um", "die", "ecke"},
	{"nearest"},
	{"closest"},
	{"nearby"},
}

// nearOpener reports a word that opens a phrase of nearPhrases: most
// words of a message open none, and are passed over at one switch.
func nearOpener(fold string) bool {
	switch fold {
	case "close", "near", "in", "nahe", "around", "um", "nearest", "closest", "nearby":
		return true
	}
	return false
}

// NearAt returns the span [start, end) of a phrase that says "near", or
// -1, -1.
func NearAt(toks []Token) (start, end int) {
	for i := range toks {
		if !nearOpener(toks[i].Fold) {
			continue
		}
	phrases:
		for _, p := range nearPhrases {
			if i+len(p) > len(toks) {
				continue
			}
			for k, w := range p {
				if toks[i+k].Fold != w {
					continue phrases
				}
			}
			return i, i + len(p)
		}
	}
	return -1, -1
}

// questionWords open a question in English and German.
var questionWords = map[string]bool{
	"how": true, "what": true, "where": true, "which": true, "when": true, "can": true, "could": true,
	"is": true, "are": true, "do": true, "does": true, "will": true, "would": true, "should": true,
	"wie": true, "was": true, "wo": true, "wohin": true, "woher": true, "welche": true, "welcher": true,
	"welches": true, "wann": true, "kann": true, "konnen": true, "gibt": true, "ist": true, "sind": true,
}

// Question reports whether a message asks something: it has a question
// mark or opens with a question word. A request ("Show me the way ...")
// is no question, and neither is a story told ("I drove ...").
func Question(msg string, toks []Token) bool {
	return strings.ContainsRune(msg, '?') || len(toks) > 0 && questionWords[toks[0].Fold]
}

// Request reports whether a message asks something or asks for something:
// a question, or a verb first ("Show me the way ...").
func (l *Lexicon) Request(msg string, toks []Token) bool {
	if Question(msg, toks) {
		return true
	}
	return len(toks) > 0 && (l.verbs[toks[0].Stem] || l.class[toks[0].Stem] != Stop && l.IdentClass(toks[0].Stem) == Generic)
}
