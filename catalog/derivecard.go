package catalog

import (
	"bytes"
	"cmp"
	"encoding/json"
	"math"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot/internal/words"
)

// A server added by hand has no manual: its usage card is derived from
// what it says about itself (C5), its tools' titles and descriptions and
// the instructions it sent at initialize. Descriptions are long and mostly
// about parameters, so a word is weighed by where it stands and by how
// specific it is, not merely counted:
//
//   - where: the first sentence of a description says what the tool is
//     for ("Calculate travel distance and time ..."), a tool's title the
//     same in a few words, the instructions what the whole server is for;
//     later sentences explain arguments and limits and count less, and
//     code, examples and quoted syntax not at all;
//   - how often: each tool counts a word once, and the tools' total is
//     scaled by the square root of the server's tool count (the
//     instructions speak for the whole server and are not scaled), so one
//     passing word among 32 tools ("website" of NotebookLM) stays out
//     while the one word that two tools of a small server share is in;
//   - how specific: a word the descriptions of many servers use tells them
//     apart less (an inverse document frequency over the catalog's
//     servers), and an everyday word less than a content word.
//
// The words kept are the card's, strongest first. A word the server's
// tool names already carry is left to the tool index, where it weighs
// more. Adjacent words of a purpose sentence ("knowledge graph", "travel
// distance") are kept as phrases too.

// Where a word stands, as weights.
const (
	posInstructionsLead = 3.0 // the first sentence of the instructions
	posPurpose          = 2.0 // a description's first sentence, a tool title, the rest of the instructions
	posLater            = 1.0 // a later sentence of a description
)

// Selection of a derived card's words.
const (
	// deriveMinScore is the score a word needs to join the card.
	deriveMinScore = 0.5
	// deriveStrongScore is the score from which a content word of the
	// card weighs as much as a card word an author chose.
	deriveStrongScore = 2.0
	// deriveMaxWords bounds a card: what the owner reads stays short, and
	// a server with hundreds of tools cannot claim every word.
	deriveMaxWords = 16
	// modifierShare is what a word counts that modifies the next one.
	modifierShare = 0.5
	// everydayShare is what an everyday word's score counts.
	everydayShare = 0.5
	// descMaxSentences bounds how much of one description is read.
	descMaxSentences = 6
)

// derived is one word or phrase of a derived card.
type derived struct {
	stem   string // stems, joined by a space for a phrase
	label  string // as the server wrote it
	source string // the tool whose description gave it most, or "instructions"
	score  float64
	phrase bool
	weight int
}

// textSpan is a clause of a server's own text with its position weight.
type textSpan struct {
	text   string
	source string // tool name, or "instructions"
	weight float64
	// verbFirst is set for the first clause of a sentence of a
	// description or the instructions: its first word is what the server
	// does ("Convert", "Performs"), not what it is about.
	verbFirst bool
}

// serverSpans cuts a server's self-description into weighted clauses,
// filling out from its start (the builder reuses one list).
func serverSpans(out []textSpan, s *Server, tools []*Capability) []textSpan {
	out = out[:0]
	for i, sent := range sentences(s.Instructions, 0) {
		w := posPurpose
		if i == 0 {
			w = posInstructionsLead
		}
		out = appendClauses(out, sent, "instructions", w, true)
	}
	for _, cp := range tools {
		if cp.title != "" {
			out = appendClauses(out, cp.title, cp.Tool, posPurpose, false)
		}
		for i, sent := range sentences(cp.Description, descMaxSentences) {
			w := posLater
			if i == 0 {
				w = posPurpose
			}
			out = appendClauses(out, sent, cp.Tool, w, true)
		}
		// The values an argument takes name what the tool does as well
		// as its purpose does ("driving", "walking", "transit" of a
		// travel mode): people say the value, not the argument.
		enums := cp.enums
		if !cp.enumsRead {
			enums = enumValues(cp.InputSchema)
		}
		for _, v := range enums {
			if isPlainWord(v) {
				out = append(out, textSpan{text: v, source: cp.Tool, weight: posPurpose})
			}
		}
	}
	return out
}

// enumValues returns the enum values of an input schema that are shaped
// like words (isWordShaped), sorted, for isPlainWord to judge when a gate
// is built. The two steps are apart because the values are read for
// every tool as its list arrives, at each start, and the judging looks
// words up in the word tables: at a start that would bring nearly all of
// the thesaurus into memory for a handful of words (a binary search over
// it touches pages all across it), long before a turn needs it.
func enumValues(schema json.RawMessage) []string {
	if !json.Valid(schema) {
		return nil
	}
	return validEnumValues(schema)
}

// validEnumValues is enumValues on a schema known to be valid JSON.
func validEnumValues(schema json.RawMessage) []string {
	if !bytes.Contains(schema, []byte(`"enum"`)) {
		return nil
	}
	// One pass over the valid JSON, decoding nothing but the enums' words:
	// it runs for every tool of every server at each start. enums marks,
	// per open array or object, an array that is an "enum" key's value:
	// its string elements are the words, at any depth.
	var out []string
	var enums []bool
	pending := false // the last key read was "enum": its value comes next
	for i := 0; i < len(schema); i++ {
		switch c := schema[i]; c {
		case '"':
			j := stringEnd(schema, i)
			k := j + 1
			for k < len(schema) && isJSONSpace(schema[k]) {
				k++
			}
			if k < len(schema) && schema[k] == ':' { // a key
				pending = string(schema[i:j+1]) == `"enum"`
				i = k
				continue
			}
			if n := len(enums); n > 0 && enums[n-1] {
				if w := unquote(schema[i : j+1]); isWordShaped(w) && !slices.Contains(out, w) {
					out = append(out, w)
				}
			}
			pending, i = false, j
		case '[':
			enums, pending = append(enums, pending), false
		case '{':
			enums, pending = append(enums, false), false
		case ']', '}':
			enums = enums[:len(enums)-1]
		case ',':
		default:
			if !isJSONSpace(c) {
				pending = false // a number or a literal: no enum's array
			}
		}
	}
	slices.Sort(out)
	return out
}

// stringEnd is the index of the quote that closes the string opening at i.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(b) - 1 // not reached in valid JSON
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// unquote is a JSON string's value; most hold no escape to decode.
func unquote(quoted []byte) string {
	if !bytes.ContainsRune(quoted, '\\') {
		return string(quoted[1 : len(quoted)-1])
	}
	var s string
	_ = json.Unmarshal(quoted, &s) // valid JSON: cannot fail
	return s
}

// isPlainWord reports a word written in lower-case letters, as people
// write it, and known to the word frequencies or the thesaurus: "walking",
// not "ASC",
// "asc", "get_diff" or "eu-west-1".
func isPlainWord(s string) bool {
	if !isWordShaped(s) {
		return false
	}
	known := func(stem string) bool {
		return words.Default().Zipf(stem) > 0 || words.DefaultThesaurus().Knows(stem)
	}
	// A gerund of a known verb is a word too ("bicycling" of "bicycle").
	base, gerund := strings.CutSuffix(s, "ing")
	return known(words.Stem(s)) || gerund && len(base) >= 3 && known(words.Stem(base))
}

// isWordShaped reports three or more lower-case letters and nothing
// else, the shape of a plain word; isPlainWord also knows the word.
func isWordShaped(s string) bool {
	if len(s) < 3 {
		return false
	}
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// appendClauses cuts a sentence at commas, brackets, colons and dashes:
// a noun that ends a clause ("news, articles") is what it names.
func appendClauses(out []textSpan, sent, source string, w float64, verbFirst bool) []textSpan {
	first := true
	for c := range strings.FieldsFuncSeq(sent, func(r rune) bool { return strings.ContainsRune(",;:()[]\"'|/", r) || r == '—' || r == '–' }) {
		if strings.TrimSpace(c) == "" {
			continue
		}
		out = append(out, textSpan{text: c, source: source, weight: w, verbFirst: verbFirst && first})
		first = false
	}
	return out
}

// ownWord reports whether a token is one of the server's own tool words,
// which may still join a phrase ("knowledge graph" of read_graph).
func (b *gateBuilder) ownWord(t words.Token, own map[string]bool) bool {
	return own[t.Stem] && !b.otherNames[t.Stem] && len(t.Stem) >= 3 && b.g.lex.Class(t.Stem) <= words.Everyday
}

// cardWord reports whether a token may join a derived card at all.
func (b *gateBuilder) cardWord(t words.Token, own map[string]bool) bool {
	if len(t.Stem) < 3 || isNumber(t.Stem) || b.otherNames[t.Stem] || own[t.Stem] {
		return false
	}
	if len(t.Fold) >= 6 && strings.HasSuffix(t.Fold, "ed") || isAdverb(t.Fold) {
		return false // "configured", "permanently": how, not what about
	}
	c := b.g.lex.Class(t.Stem)
	return c == words.Content || c == words.Everyday
}

// toolWeights are a word's best position weight per source (a tool, or
// "instructions"), in the order first seen: a word has a few sources at
// most, and a builder holds one set per candidate word of every server, so
// a list beats a map's table.
type toolWeights []toolWeight

type toolWeight struct {
	source string
	w      float64
}

// raise keeps w for source if it is more than the source has so far.
func (ts *toolWeights) raise(source string, w float64) {
	for i := range *ts {
		if (*ts)[i].source == source {
			(*ts)[i].w = max((*ts)[i].w, w)
			return
		}
	}
	if w > 0 {
		*ts = append(*ts, toolWeight{source, w})
	}
}

// of is source's weight, 0 for none.
func (ts toolWeights) of(source string) float64 {
	for _, t := range ts {
		if t.source == source {
			return t.w
		}
	}
	return 0
}

// countServerStems counts, for each stem a server's own text uses, one
// more server in srvDF, for the catalog-wide specificity of a word. The
// counts live only while the gate is built, so their keys are the
// tokens' own stems, not copies.
func (b *gateBuilder) countServerStems(si int32, s *Server, tools []*Capability) {
	b.spans = serverSpans(b.spans, s, tools)
	for _, sp := range b.spans {
		for _, t := range b.z.Tokenize(sp.text) {
			if len(t.Stem) < 3 {
				continue
			}
			c, ok := b.srvDF[t.Stem]
			if !ok {
				c = serverCount{last: -1}
			}
			if c.last != si {
				c.last, c.n = si, c.n+1
				b.srvDF[t.Stem] = c
			}
		}
	}
}

// serverCount is how many servers' text uses a stem, and the last server
// counted.
type serverCount struct{ last, n int32 }

// cardCandidate is a word or phrase deriveCard weighs for a server's
// derived card.
type cardCandidate struct {
	byTool toolWeights // source -> best position weight
	label  string
	source string
	best   float64
	phrase bool
	head   bool // it heads a noun phrase somewhere, not only modifies one
}

// deriveCard returns the derived usage card of a server without one,
// strongest first. own holds the stems its name and tool names already
// carry.
func (b *gateBuilder) deriveCard(s *Server, tools []*Capability, own map[string]bool) []derived {
	// One server's candidates at a time, in room the builder keeps from
	// server to server.
	if b.cands == nil {
		b.cands = map[string]int32{}
	}
	clear(b.cands)
	b.accs = b.accs[:0]
	purposes := func(a *cardCandidate) int {
		n := 0
		for _, tw := range a.byTool {
			if tw.w >= posPurpose {
				n++
			}
		}
		return n
	}
	add := func(stem, label, source string, w float64, phrase, head bool) {
		i, ok := b.cands[stem]
		if !ok {
			i = int32(len(b.accs))
			b.cands[stem] = i
			if len(b.accs) < cap(b.accs) {
				// A slot of an earlier server's candidate: its tool
				// weights' room is reused too.
				b.accs = b.accs[:i+1]
				b.accs[i] = cardCandidate{byTool: b.accs[i].byTool[:0], label: label, phrase: phrase}
			} else {
				b.accs = append(b.accs, cardCandidate{label: label, phrase: phrase})
			}
		}
		a := &b.accs[i]
		a.byTool.raise(source, w)
		if w > a.best {
			a.best, a.source = w, source
		}
		a.head = a.head || head
	}
	lex := b.g.lex
	b.spans = serverSpans(b.spans, s, tools)
	for _, sp := range b.spans {
		toks := b.z.Tokenize(sp.text)
		for i, t := range toks {
			if i == 0 && sp.verbFirst || !b.cardWord(t, own) {
				continue
			}
			// The head of a noun phrase stands before a function word or
			// at the end of its clause ("address into", "... and
			// destinations"); a word before another content word modifies
			// it ("travel distance") and names the subject less on its
			// own, though the two together name it well.
			var next *words.Token
			if i+1 < len(toks) && lex.Class(toks[i+1].Stem) != words.Stop {
				next = &toks[i+1]
			}
			w := sp.weight
			if next != nil {
				w *= modifierShare
				if b.cardWord(*next, own) || b.ownWord(*next, own) {
					add(t.Stem+" "+next.Stem, t.Fold+" "+next.Fold, sp.source, sp.weight, true, true)
				}
			}
			add(strings.Clone(t.Stem), strings.Clone(t.Fold), sp.source, w, false, next == nil)
		}
	}
	n := math.Sqrt(float64(max(len(tools), 1)))
	var out []derived
	for stem, i := range b.cands {
		a := &b.accs[i]
		// The instructions speak for the whole server; a tool's text
		// for one of its tools.
		sum := 0.0
		for _, tw := range a.byTool {
			if tw.source != "instructions" {
				sum += tw.w
			}
		}
		score := (a.byTool.of("instructions") + sum/n) * b.specificity(stem)
		if !a.phrase && lex.Class(stem) == words.Everyday {
			score *= everydayShare
		}
		if a.phrase && a.best < posPurpose {
			continue // a phrase must say what a tool is for
		}
		if score < deriveMinScore {
			continue
		}
		d := derived{stem: stem, label: a.label, source: a.source, score: score, phrase: a.phrase, weight: weightWeak}
		// A word weighs as much as an author's card word only when the
		// server says it in two places where it says what it is for (its
		// instructions and a tool's purpose, or two tools' purposes): one
		// sentence's passing word ("later") is no subject, and a later
		// sentence repeated by every tool ("to identify the target") is
		// boilerplate. Two words named together are specific enough when
		// one of their two places says what the server is for. A word
		// that only modifies others ("knowledge" of "knowledge graph") is
		// strong only in its phrase.
		said := purposes(a) >= 2 || a.phrase && purposes(a) >= 1 && len(a.byTool) >= 2
		if score >= deriveStrongScore && said && a.head && (a.phrase || lex.Class(stem) == words.Content) {
			d.weight = weightStrong
		}
		out = append(out, d)
	}
	slices.SortFunc(out, func(x, y derived) int {
		if c := cmp.Compare(y.score, x.score); c != 0 {
			return c
		}
		return cmp.Compare(x.stem, y.stem)
	})
	if len(out) > deriveMaxWords {
		out = out[:deriveMaxWords]
	}
	return out
}

// specificity is how well a stem (or each word of a phrase) tells one
// server of the catalog from the others: 1 for a word only one server's
// text uses, less the more servers use it.
func (b *gateBuilder) specificity(stem string) float64 {
	if b.nServers <= 1 {
		return 1
	}
	df := 0
	for w := range strings.FieldsSeq(stem) {
		df = max(df, int(b.srvDF[w].n))
	}
	df = max(df, 1)
	return math.Log(float64(b.nServers+1)/float64(df)) / math.Log(float64(b.nServers+1))
}

// sentences splits text at sentence ends and line breaks, dropping what
// reads as code or syntax: examples and argument formats name no use. A
// limit other than 0 bounds how many are kept.
func sentences(text string, limit int) []string {
	var out []string
	start := 0
	emit := func(end int) {
		s := strings.TrimSpace(text[start:end])
		start = end + 1
		if s == "" || strings.ContainsAny(s, "`{}=<>") || strings.Contains(s, "://") {
			return
		}
		out = append(out, s)
	}
	for i := 0; i < len(text) && (limit == 0 || len(out) < limit); i++ {
		switch text[i] {
		case '\n':
			emit(i)
		case '.', '!', '?':
			if i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n' {
				emit(i)
			}
		}
	}
	if start < len(text) && (limit == 0 || len(out) < limit) {
		emit(len(text))
	}
	return out
}

// adverbSources are the adjective endings that "-ly" turns into adverbs
// ("complete-ly", "permanent-ly", "explicit-ly"); nouns in -ly ("family",
// "assembly") keep theirs.
var adverbSources = []string{"al", "ent", "ant", "ate", "ete", "ous", "ive", "ful", "less", "ic", "it", "ible", "able", "ear", "ect", "ick", "ow"}

// isAdverb reports an English adverb in -ly.
func isAdverb(fold string) bool {
	base, ok := strings.CutSuffix(fold, "ly")
	if !ok || len(base) < 4 {
		return false
	}
	for _, end := range adverbSources {
		if strings.HasSuffix(base, end) {
			return true
		}
	}
	return false
}

// purposePairs adds the verbs a tool's purpose sentence joins to the
// tool's own verb ("Move or rename files" of move_file) as pairs with the
// tool's noun: the description names the tool a second way, as its name
// does. Only such a coordination counts, not any verb near the noun: a
// purpose sentence's other verbs are about arguments and results.
func (b *gateBuilder) purposePairs(si int32, cp *Capability, nameWords map[string]bool) {
	lex := b.g.lex
	var verbs, nouns []words.Token
	for _, t := range b.zc.Tokenize(cp.Tool) {
		if len(t.Stem) < 2 || isNumber(t.Stem) || nameWords[t.Stem] {
			continue
		}
		tok := words.Token{Fold: strings.Clone(t.Fold), Stem: strings.Clone(t.Stem)}
		switch c := lex.IdentClass(t.Stem); {
		case lex.IsVerb(t.Stem) || c == words.Generic:
			verbs = append(verbs, tok)
		case c != words.Stop && len(t.Stem) >= 3:
			nouns = append(nouns, tok)
		}
	}
	sents := sentences(cp.Description, 1)
	if len(verbs) == 0 || len(nouns) == 0 || len(sents) == 0 {
		return
	}
	toks := slices.Clone(b.z.Tokenize(sents[0]))
	for i := 0; i+2 < len(toks); i++ {
		if !slices.ContainsFunc(verbs, func(v words.Token) bool { return v.Stem == toks[i].Stem }) || !isConjunction(toks[i+1].Fold) {
			continue
		}
		other := toks[i+2]
		if lex.Class(other.Stem) == words.Stop || slices.ContainsFunc(verbs, func(v words.Token) bool { return v.Stem == other.Stem }) {
			continue
		}
		// The noun follows within a few words: "rename files", "rename
		// the selected files".
		for j, seen := i+3, 0; j < len(toks) && seen < pairWindow; j++ {
			if lex.Class(toks[j].Stem) == words.Stop {
				continue
			}
			seen++
			if k := slices.IndexFunc(nouns, func(n words.Token) bool { return n.Stem == toks[j].Stem }); k >= 0 {
				b.pair(si, words.Token{Fold: strings.Clone(other.Fold), Stem: strings.Clone(other.Stem)}, nouns[k], cp.Tool)
				break
			}
		}
	}
}

// isConjunction reports the words that join two verbs of one purpose
// ("Move or rename", "Lesen und schreiben").
func isConjunction(fold string) bool {
	switch fold {
	case "or", "and", "oder", "und":
		return true
	}
	return false
}
