package catalog

import (
	"iter"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/jarvisbot/jarvisbot/internal/frozen"
	"github.com/jarvisbot/jarvisbot/internal/words"
)

// gateBuilder collects each server's vocabulary, deduplicated by phrase,
// and then indexes it. Building happens once per catalog change, never per
// turn.
type gateBuilder struct {
	g       *Gate
	z       words.Tokenizer // for messages-like text: titles, cards, descriptions
	zc      words.Tokenizer // camel-splitting, for tool names
	byKey   map[termKey]int32
	toolSrv map[string]map[int32]bool // tool word stem -> servers that have it
	// otherNames holds the words of every server's names; they never join
	// a derived card from descriptions.
	otherNames map[string]bool
	// carded is set while a server with a usage card is added: its author
	// chose the words in each language, so its tool words are not also
	// translated ("search_events" of an error tracker is not "Termine").
	carded bool
	// srvDF counts, per stem, the servers whose own text (descriptions,
	// titles, instructions) uses it; nServers is how many servers there
	// are. A derived card weighs its words by how few servers share them.
	srvDF    map[string]serverCount
	nServers int
	// names, uni and pairs collect the gate's postings (Gate), frozen
	// when it is built; the builder looks names up as it goes.
	names             map[string][]int32
	uni, pairs, tools frozen.Postings[int32]
	// spans is the list serverSpans fills, one server at a time.
	spans []textSpan
	// cands and accs are deriveCard's candidates, one server at a time:
	// a stem's index in accs.
	cands map[string]int32
	accs  []cardCandidate
	// key is the room a tool pair's key is written in (appendPairKey).
	key []byte
}

type termKey struct {
	server int32
	phrase string
	kind   EvidenceKind
}

func buildGate(v *View) *Gate {
	g := &Gate{
		servers:    make([]string, len(v.servers)),
		conn:       make([]bool, len(v.servers)),
		carded:     make([]bool, len(v.servers)),
		lex:        words.Default(),
		fileStem:   words.Stem("file"),
		docStem:    words.Stem("document"),
		routeStems: [2]string{words.Stem("directions"), words.Stem("route")},
		nearStem:   words.Stem("near"),
	}
	b := &gateBuilder{g: g, toolSrv: map[string]map[int32]bool{}, zc: words.Tokenizer{Camel: true}, otherNames: map[string]bool{},
		names: map[string][]int32{}}
	// Words of server names: a description that mentions "Google Drive"
	// does not make its server a Google Drive server.
	for _, s := range v.servers {
		for _, n := range append([]string{s.ID, s.Title, s.Plugin}, s.Aliases...) {
			for _, t := range b.z.Tokenize(n) {
				b.otherNames[strings.Clone(t.Stem)] = true
			}
		}
	}
	tools := map[string][]*Capability{}
	for i := range v.caps {
		if cp := &v.caps[i]; cp.Server != "" && !v.never[i] {
			tools[cp.Server] = append(tools[cp.Server], cp)
		}
	}
	// Some six terms per tool and twenty per server (the extended
	// catalog's 294 tools make 1,802): room made once instead of over a
	// dozen doublings of the list. The map that finds a server's terms
	// holds one server's at a time (addServer).
	n := 6*len(v.caps) + 20*len(v.servers)
	g.terms, b.byKey = make([]term, 0, n), map[termKey]int32{}
	// Some three stems per tool (945 for the extended catalog's 294).
	b.srvDF, b.nServers = make(map[string]serverCount, 4*len(v.caps)), len(v.servers)
	for si := range v.servers {
		b.countServerStems(int32(si), &v.servers[si], tools[v.servers[si].ID])
	}
	for si, s := range v.servers {
		g.servers[si] = s.ID
		g.conn[si] = s.Connected
		g.carded[si] = len(s.Card) > 0
		b.addServer(int32(si), s, tools[s.ID])
	}
	b.demoteShared()
	if cap(g.terms) > len(g.terms)+len(g.terms)/4 {
		g.terms = slices.Clone(g.terms) // the gate keeps them: no room to spare
	}
	g.names, g.uni, g.pairs, g.tools = frozen.From(b.names), b.uni.Freeze(), b.pairs.Freeze(), b.tools.Freeze()
	g.past = buildPast(g, v.servers)
	g.keep = buildKeep(g)
	return g
}

func (b *gateBuilder) addServer(si int32, s Server, tools []*Capability) {
	lex := b.g.lex
	// A term belongs to one server: the terms of the last one are not
	// looked up again, and their room is reused.
	clear(b.byKey)
	// Names, in every spelling the owner may use. An id like
	// "notebooklm-mcp" is also known without its "-mcp".
	nameWords := map[string]bool{}
	for _, n := range append([]string{s.ID, trimMCPAffixes(s.ID), s.Title, s.Plugin}, s.Aliases...) {
		key := words.Key(n)
		if len(key) < 2 {
			continue
		}
		// A one-word name ("slack") says nothing new when a tool name
		// repeats it; a word of a longer name ("calendar" of "Google
		// Calendar") still counts as a tool word.
		if toks := b.z.Tokenize(n); len(toks) == 1 {
			nameWords[strings.Clone(toks[0].Stem)] = true
			if len(s.Card) == 0 && !s.Past {
				b.paraphraseName(si, strings.Clone(toks[0].Stem), n)
			}
		}
		w := weightName
		switch lex.Class(words.Stem(key)) {
		case words.Generic, words.Stop:
			continue // a server called "search" is not named by "search"
		case words.Everyday:
			w = weightWeak // "memory": my computer's memory is not the memory server
		}
		id := b.term(si, key, n, "", EvName, w)
		b.index(b.names, key, id)
	}
	if s.Past {
		return // offered on words of the past (past.go), never by its tools' words
	}
	// Single words of a multi-word title ("Brave" of "Brave Search") are a
	// weak hint: a second signal is still needed.
	if toks := b.z.Tokenize(s.Title); len(toks) > 1 {
		for _, t := range toks {
			if lex.Class(t.Stem) == words.Content && len(t.Stem) >= 3 && !isNumber(t.Stem) {
				b.word(si, t.Stem, strings.Clone(t.Fold), "", EvTitleWord, weightWeak)
			}
		}
	}
	// The usage card: the words the plugin's manual (or the owner) chose.
	b.carded = len(s.Card) > 0
	defer func() { b.carded = false }()
	for _, c := range s.Card {
		b.joinedWord(si, c)
		phrase := b.g.lex.ContentPhrase(&b.z, c)
		switch {
		case phrase == "":
		case strings.Contains(phrase, " "):
			b.phrase(si, phrase, c, "", EvCard, weightStrong)
		default:
			if w := classWeight(lex.Class(phrase)); w > 0 {
				b.word(si, phrase, c, "", EvCard, w)
			}
		}
	}
	b.addLearned(si, s)
	// Tool names: their distinctive words, and the pairs they join.
	for _, cp := range tools {
		var parts []words.Token
		for _, t := range b.zc.Tokenize(cp.Tool) {
			if len(t.Stem) < 2 || isNumber(t.Stem) || nameWords[t.Stem] {
				continue // "slack" in slack_post_message says nothing new
			}
			parts = append(parts, words.Token{Fold: strings.Clone(t.Fold), Stem: strings.Clone(t.Stem)})
		}
		for i, p := range parts {
			cls := lex.IdentClass(p.Stem) // tool names are built from common words
			if w := classWeight(cls); w > 0 && len(p.Stem) >= 3 {
				b.word(si, p.Stem, p.Fold, cp.Tool, EvTool, w)
				if b.toolSrv[p.Stem] == nil {
					b.toolSrv[p.Stem] = map[int32]bool{}
				}
				b.toolSrv[p.Stem][si] = true
			}
			for j := i + 1; j < len(parts) && j <= i+2; j++ {
				q := parts[j]
				cq := lex.Class(q.Stem)
				if cls == words.Stop || cq == words.Stop || cls == words.Generic && cq == words.Generic || p.Stem == q.Stem {
					continue
				}
				b.pair(si, p, q, cp.Tool)
			}
		}
	}
	// A server without a card gets one derived from what it says about
	// itself: its tools' descriptions and its instructions (derivecard.go).
	if len(s.Card) == 0 {
		for _, cp := range tools {
			b.purposePairs(si, cp, nameWords)
		}
		own := maps.Clone(nameWords)
		for stem := range b.toolSrv {
			if b.toolSrv[stem][si] {
				own[stem] = true
			}
		}
		for _, d := range b.deriveCard(&s, tools, own) {
			if d.phrase {
				b.phrase(si, d.stem, d.label, d.source, EvDesc, d.weight)
			} else {
				b.word(si, d.stem, d.label, d.source, EvDesc, d.weight)
			}
		}
	}
}

// joinedWord indexes a card word that its author wrote with hyphens
// ("to-do", "check-in") as the one word it is: its parts are often
// function words that no phrase keeps, and apart ("nothing to do") they
// mean something else. The message's "to-do" and "todo" match it
// (Gate.matchJoined).
func (b *gateBuilder) joinedWord(si int32, c string) {
	toks := b.z.Tokenize(c)
	if len(toks) < 2 {
		return
	}
	for _, t := range toks[1:] {
		if !t.Joined {
			return
		}
	}
	stem := words.Stem(words.Key(c))
	if len(stem) < 4 {
		return
	}
	if w := classWeight(b.g.lex.Class(stem)); w > 0 {
		b.uni.Add(stem, b.term(si, stem, c, "", EvCard, w))
	}
}

// classWeight is the weight a single word of a card or tool name carries.
func classWeight(c words.Class) int {
	switch c {
	case words.Content:
		return weightStrong
	case words.Everyday:
		return weightWeak
	}
	return 0
}

// term returns the id of a server's term, creating it or raising its
// weight. The same phrase from two sources (card and tool name) is one
// term, so one message word cannot count twice.
func (b *gateBuilder) term(si int32, phrase, label, source string, kind EvidenceKind, w int) int32 {
	k := termKey{si, phrase, kindGroup(kind)}
	if id, ok := b.byKey[k]; ok {
		t := &b.g.terms[id]
		if int(t.weight) < w || int(t.weight) == w && kind < t.kind {
			t.weight, t.kind, t.label, t.source = int8(w), kind, label, source
		}
		return id
	}
	id := int32(len(b.g.terms))
	b.g.terms = append(b.g.terms, term{server: si, kind: kind, weight: int8(w), phrase: phrase, label: label, source: source, of: id})
	b.byKey[k] = id
	return id
}

// kindGroup puts names in their own namespace (they are matched by key,
// not by stem); every other kind shares one, so a phrase is one term.
func kindGroup(k EvidenceKind) EvidenceKind {
	if k == EvName {
		return EvName
	}
	return EvCard
}

// word adds a single-word term and the words that mean the same.
func (b *gateBuilder) word(si int32, stem, label, source string, kind EvidenceKind, w int) int32 {
	id := b.term(si, stem, label, source, kind, w)
	b.g.terms[id].of = id // a word of the server's own counts in its own right
	b.uni.Add(stem, id)
	if kind == EvTool && b.carded {
		return id
	}
	for _, rel := range b.g.lex.Related(stem) {
		if strings.Contains(rel, " ") {
			b.indexPhrase(rel, id)
			continue
		}
		// A synonym weighs what it says on its own: "event" is everyday,
		// its German "Termin" is not; "ticket" would be, "issue" is.
		rw := w
		if b.g.lex.IsVerb(rel) {
			continue // "verschiebe" for move_file counts in a pair only
		}
		if kind == EvTool || kind == EvCard {
			if rw = classWeight(b.g.lex.Class(rel)); rw == 0 {
				continue
			}
		}
		b.uni.Add(rel, b.term(si, rel, label, source, kind, rw))
	}
	b.paraphrase(si, id, stem, label, source, kind, w)
	return id
}

// phrase adds a multi-word term ("pull request") and its synonyms.
func (b *gateBuilder) phrase(si int32, phrase, label, source string, kind EvidenceKind, w int) int32 {
	id := b.term(si, phrase, label, source, kind, w)
	b.indexPhrase(phrase, id)
	for _, rel := range b.g.lex.Related(phrase) {
		if strings.Contains(rel, " ") {
			b.indexPhrase(rel, id)
		} else {
			b.uni.Add(rel, id) // "pr" stands for "pull request"
		}
	}
	return id
}

// pair adds a tool pair, matched in either order ("issue read" and "read
// the issue"), also when the message uses a synonym of either word.
func (b *gateBuilder) pair(si int32, p, q words.Token, tool string) {
	lex := b.g.lex
	phrase := p.Stem + " " + q.Stem
	id := b.term(si, phrase, p.Fold+" "+q.Fold, tool, EvPair, weightStrong)
	ps := b.pairHalf(p.Stem)
	qs := b.pairHalf(q.Stem)
	for _, a := range ps {
		for _, c := range qs {
			b.key = appendPairKey(b.key[:0], a, c)
			b.tools.Add(string(b.key), id)
		}
	}
	// A two-word pair is also a phrase people write as one word sometimes
	// ("mindmap", "flashcard"): the glossary covers the known ones.
	if rel := lex.Related(phrase); len(rel) > 0 {
		for _, r := range rel {
			if strings.Contains(r, " ") {
				b.indexPhrase(r, id)
			} else {
				b.uni.Add(r, id)
			}
		}
	}
}

// pairHalf is what a message may say for one word of a tool pair: the
// word, the glossary's words for it, and the thesaurus's translations and
// first few synonyms ("seek on the web" for brave_web_search). Either half
// alone is no evidence, so the looser words are safe here where they would
// not be as single words. Inflected forms are not: a verb's past ("the
// project deadline moved") tells what happened, not what to do.
func (b *gateBuilder) pairHalf(stem string) []string {
	out := append([]string{stem}, singleWords(b.g.lex.Related(stem))...)
	th := words.DefaultThesaurus()
	add := func(list iter.Seq[string], limit int) {
		for w := range list {
			if limit == 0 {
				return
			}
			if b.g.lex.Class(w) != words.Stop && !slices.Contains(out, w) && !b.otherNames[w] {
				out = append(out, w)
				limit--
			}
		}
	}
	add(th.Words(stem, words.Same), -1)
	add(th.Words(stem, words.Synonym), pairSynonyms)
	return out
}

// pairSynonyms is how many of a word's synonyms, commonest first, stand in
// for it in a tool pair.
const pairSynonyms = 4

func singleWords(list []string) []string {
	var out []string
	for _, s := range list {
		if !strings.Contains(s, " ") {
			out = append(out, s)
		}
	}
	return out
}

// appendPairKey appends the key a tool pair of stems a and c is filed
// under: the two in sorted order, so that one posting matches "read the
// issue" and "issue read" alike.
func appendPairKey(buf []byte, a, c string) []byte {
	if c < a {
		a, c = c, a
	}
	return append(append(append(buf, a...), ' '), c...)
}

// indexPhrase indexes a phrase of two or more words by its consecutive
// pairs; three-word phrases are rare enough that any of their pairs counts.
func (b *gateBuilder) indexPhrase(phrase string, id int32) {
	ws := strings.Fields(phrase)
	for i := 0; i+1 < len(ws); i++ {
		b.pairs.Add(ws[i]+" "+ws[i+1], id)
	}
}

func (b *gateBuilder) index(m map[string][]int32, key string, id int32) {
	for _, x := range m[key] {
		if x == id {
			return
		}
	}
	m[key] = append(m[key], id)
}

// demoteShared lowers tool words that the tools of three or more servers
// share ("project", "branch" in a large catalog): they cannot tell the
// servers apart, so alone they must not offer any of them.
func (b *gateBuilder) demoteShared() {
	for i := range b.g.terms {
		t := &b.g.terms[i]
		if t.kind != EvTool || t.weight <= weightWeak {
			continue
		}
		if srv := b.toolSrv[t.phrase]; len(srv) >= 3 && srv[t.server] {
			t.weight = weightWeak
		}
	}
}

// trimMCPAffixes drops the "mcp"/"server" decorations of server ids:
// "notebooklm-mcp" -> "notebooklm", "mcp-server-git" -> "git".
func trimMCPAffixes(id string) string {
	parts := strings.FieldsFunc(strings.ToLower(id), func(r rune) bool { return r == '-' || r == '_' || r == '.' })
	var keep []string
	for _, p := range parts {
		if p != "mcp" && p != "server" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, "-")
}

func isNumber(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return s != ""
}
