package catalog

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/jarvisbot/jarvisbot/internal/frozen"
	"github.com/jarvisbot/jarvisbot/internal/words"
)

// The MCP gate (C5). Connected does not mean offered: before every turn,
// with no model call, a server's tools are offered only when the message
// carries evidence for that server. Evidence comes in kinds, each with a
// weight; a server is offered when its evidence adds up to OfferAt.
//
//   - name (3): the server's id, title, alias or plugin, in any spelling
//     ("NotebookLM", "notebook lm", "notebook-lm", "notebooklm-mcp").
//   - card word (2, everyday words 1): a word of the server's usage card,
//     from its plugin's manual or the config ("repo", "pull request").
//   - tool word (2, everyday words 1): a distinctive word from the server's
//     own tool names ("flashcards" from flashcards_create).
//   - tool pair (2): two words that one tool name joins, near each other in
//     the message ("create ... event" for create-event, "mind map").
//   - description word (1, at most 2 per server; 2 when the server says it
//     where it says what it is for, twice): for servers without a card, a
//     word of the card derived from their descriptions and instructions
//     (derivecard.go).
//
// Generic words ("create", "list", "report") are never evidence. Everyday
// words ("issue", "release", "drive"; internal/words decides them from
// English and German word frequencies) weigh 1, so one of them alone never
// offers a server while a second signal does: "I have an issue with my
// internet" offers nothing, "which issues are open in the website repo"
// offers GitHub. That holds even when one everyday word is evidence twice
// over (a server named "Notes" whose card says "notes"): a server needs
// one strong piece of evidence or words from two places in the message. A
// word shared by the tools of three or more servers says
// little about any one of them and weighs 1 too. Matching is by whole
// words after folding and light stemming, so "repo" never fires inside
// "report" and "Termin" never inside "Terminals"; German compounds match by
// their head ("Kundentermine" -> "termin") when the head is long enough
// to be safe.
//
// The known gap of the design note is closed by construction: NotebookLM's
// "website" appears in one tool description only, so it is not part of the
// server's vocabulary, and a GitHub question that says "website" does not
// offer NotebookLM.

// OfferAt is the evidence a server needs to be offered.
const OfferAt = 2

// Weights of the evidence kinds.
const (
	weightName     = 3
	weightStrong   = 2
	weightWeak     = 1
	maxDescPerTurn = 2
	// compoundHead is the shortest word matched as the head of a compound:
	// "termin" in "Kundentermine" is safe, "repo" or "song" would not be.
	compoundHead = 5
	// pairWindow is how far apart (in non-function words) the two words of
	// a tool pair may stand: "create a new calendar event" still pairs.
	pairWindow = 3
)

// EvidenceKind says where a piece of evidence came from.
type EvidenceKind uint8

// Evidence kinds, in the order explanations prefer them.
const (
	EvName EvidenceKind = iota
	EvCard
	EvPair
	EvTool
	EvTitleWord
	EvDesc
	// EvFact: the owner tells a fact of theirs or asks about one, beside
	// a verb of keeping, for a server that keeps facts (memory.go).
	EvFact
	// EvPast: the owner refers to the past of the conversation or to
	// remembering, for a server that searches what was said (past.go).
	EvPast
	// EvLearned: a word the gate learned from the owner's earlier turns
	// (learned.go).
	EvLearned
)

func (k EvidenceKind) String() string {
	switch k {
	case EvName:
		return "name"
	case EvCard:
		return "card word"
	case EvPair:
		return "tool pair"
	case EvTool:
		return "tool word"
	case EvTitleWord:
		return "title word"
	case EvFact:
		return "owner's fact"
	case EvPast:
		return "words of the past"
	case EvLearned:
		return "learned word"
	}
	return "description word"
}

type term struct {
	server int32
	kind   EvidenceKind
	weight int8
	phrase string // as indexed: stems joined by spaces
	label  string // as shown: the word or phrase as the source wrote it
	source string // the tool it came from, "" for names and cards
	// of is the term a paraphrase stands for (its own id otherwise): the
	// paraphrases of one server word count once a turn, so "nearby" and
	// "closest" are not two reasons for a tool's "distance".
	of int32
}

// Gate is the per-turn MCP check of one catalog view. It is immutable and
// safe for concurrent use.
type Gate struct {
	servers []string // view server index -> id
	conn    []bool
	// carded marks the servers with a usage card: their everyday card
	// words add up only in a request (Check).
	carded []bool
	terms  []term
	// The index, frozen once built (internal/frozen).
	names frozen.Map[int32] // name key (letters and digits only) -> terms
	uni   frozen.Map[int32] // stem -> terms
	pairs frozen.Map[int32] // "stem stem" -> terms: the words of a phrase, in its order
	// tools holds the tool pairs, which match in either order: each is
	// filed once, under its two stems in sorted order (pairKey).
	tools frozen.Map[int32]
	lex   *words.Lexicon
	pool  sync.Pool
	// keep knows the servers that keep facts about the owner (memory.go).
	keep keepWords
	// past knows the servers that search what was said (past.go).
	past pastWords
	// fileStem and docStem are the stems of "file" and "document": what a
	// file name in a message stands for (fileNames).
	fileStem, docStem string
	// routeStems and nearStem are the words a route of two named places
	// ("from Köln to Bonn") and a phrase of nearness ("close to") stand
	// for (travel).
	routeStems [2]string
	nearStem   string
}

type scratch struct {
	z       words.Tokenizer
	content []int32  // positions of the non-function words
	stop    []bool   // per message position: a function word
	seen    []uint32 // per term: gen when counted this turn
	stood   []uint32 // per term: gen when a paraphrase of it counted this turn
	gen     uint32
	score   []int16
	desc    []int8
	ev      [][maxEvidence]Evidence
	nev     []uint8
	best    []int32 // per server: best term for the current position, -1 none
	strong  []bool  // per server: some evidence weighs more than an everyday word
	from    []int32 // per server: the message position of its first evidence, -1 none
	spread  []bool  // per server: evidence from two or more message positions
	buf     []byte
	stem    []byte // buf stemmed, for words written with hyphens
	// doc marks the message positions of file names, true for a
	// document's: evidence of "file" and "document" (fileNames).
	doc map[int32]bool
	// fileAt is the position of the first file name, -1 none: every file
	// name of a message is one piece of evidence, so two of them
	// ("rename a.docx to b.docx") are not two places.
	fileAt int32
	// learnN counts, per server, the learned words the message says, and
	// learnAt holds the message positions of the first two: learned words
	// are weighed once the message's other evidence is known (learned.go).
	learnN  []uint8
	learnAt [][2]int32
	// learnFresh counts those of them that kept their full weight: no
	// offer they brought was ignored since their last use.
	learnFresh []uint8
}

// maxEvidence is how much evidence a decision keeps for its explanation.
const maxEvidence = 4

// Evidence is one reason a server was (or was not) offered.
type Evidence struct {
	Kind   EvidenceKind
	Weight int
	Word   string // what the message said
	Term   string // the vocabulary entry it matched
	Source string // the tool that brought the entry, if any
}

// Decision is the gate's verdict on one server for one message.
type Decision struct {
	Server    string
	Connected bool
	Offered   bool
	Score     int
	// Manual is the store plugin whose manual entered the turn and brought
	// this server with it (Plan.Turn); "" when the words alone decided.
	Manual  string
	evident bool // the words are enough, whether or not it is connected
	unasked bool // everyday card words only, in a message that asks for nothing
	// learnedOut says why the words learned for the server did not offer
	// it (learned.go); 0 when they did or there were none.
	learnedOut learnedRefusal
	evidence   [maxEvidence]Evidence
	nEvidence  uint8
}

// Evident reports whether the message's words are enough to offer the
// server once it is connected: OfferAt reached, and not by one everyday
// word alone.
func (d *Decision) Evident() bool { return d.evident }

// Evidence returns what the decision rests on, strongest first.
func (d *Decision) Evidence() []Evidence { return d.evidence[:d.nEvidence] }

// Because explains the decision in one line, for people and for
// `route --json`.
func (d *Decision) Because() string {
	if !d.Connected {
		return "not connected"
	}
	ev := d.Evidence()
	var b strings.Builder
	if d.Manual != "" {
		b.WriteString("the manual of plugin " + d.Manual + " entered the turn (skill:" + d.Manual + ")")
		if len(ev) == 0 {
			return b.String()
		}
		b.WriteString("; ")
	}
	if len(ev) == 0 {
		return "no word of the message points at this server"
	}
	alone := !d.Offered && d.Score >= OfferAt
	switch {
	case d.learnedOut != 0:
		b.WriteString(d.learnedOut.String() + ": ")
	case d.unasked:
		b.WriteString("everyday words only, in a message that asks for nothing of the owner's: ")
	case alone:
		b.WriteString("one everyday word only: ")
	case !d.Offered:
		fmt.Fprintf(&b, "weak evidence only (%d of %d): ", d.Score, OfferAt)
	}
	for i, e := range ev {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.String())
	}
	switch {
	case d.learnedOut != 0:
		b.WriteString("; " + d.learnedOut.rule())
	case d.unasked:
		b.WriteString("; everyday words add up only in a request (my, I, please, a verb first)")
	case !d.Offered && d.Score > 0:
		b.WriteString("; an everyday word alone does not offer a server")
	}
	return b.String()
}

func (e Evidence) String() string {
	s := fmt.Sprintf("%s %q", e.Kind, e.Word)
	if e.Term != "" && e.Term != e.Word {
		s += fmt.Sprintf(" (as %q)", e.Term)
	}
	if e.Source != "" {
		s += " from " + e.Source
	}
	if e.Weight == weightWeak && e.Kind != EvLearned {
		s += " [everyday]"
	}
	return s
}

// Check decides every server of the view for msg. It appends to out (pass
// a reused slice to keep the call allocation-light) in server id order.
func (g *Gate) Check(msg string, out []Decision) []Decision {
	sc, _ := g.pool.Get().(*scratch)
	if sc == nil {
		sc = &scratch{}
	}
	defer g.pool.Put(sc)
	g.reset(sc)
	toks := sc.z.Tokenize(msg)
	g.fileNames(sc, toks)

	sc.content = sc.content[:0]
	sc.stop = sc.stop[:0]
	for i, t := range toks {
		// A verb of the verb groups spelt like a function word of the
		// other language ("such", German for "search") still pairs with
		// a tool's noun; alone it is never evidence (IsVerb).
		stop := g.lex.Class(t.Stem) == words.Stop
		sc.stop = append(sc.stop, stop)
		if !stop || g.lex.IsVerb(t.Stem) {
			sc.content = append(sc.content, int32(i))
		}
	}
	// Phrases of nearness first: a word they read ("nearest") is then not
	// counted again, weaker, on its own. Routes last: they weigh what the
	// other words left (route).
	g.near(sc, toks)
	g.matchNames(sc, toks)
	g.matchWords(sc, toks)
	g.matchJoined(sc, toks)
	g.matchPairs(sc, toks)
	g.route(sc, msg, toks)

	asks := -1 // whether the message asks for something of the owner's; -1 not read yet
	fact := -1 // whether it tells or asks a fact of the owner's to keep (memory.go); -1 not read yet
	var factEv Evidence
	past := -1 // whether it refers to the past of the conversation (past.go); -1 not read yet
	var pastEv Evidence
	var cues learnedCues // what the message says beside learned words, read once (learned.go)
	for si, id := range g.servers {
		d := Decision{Server: id, Connected: g.conn[si], Score: int(sc.score[si])}
		d.evident = d.Score >= OfferAt && (sc.strong[si] || sc.spread[si])
		if d.evident && !sc.strong[si] && sc.desc[si] == 0 {
			// Everyday words of a card or of tool names add up in a
			// request about the owner's things, not in a question about
			// the words: "Is a folder a kind of file?" is no file
			// service's business. The weak words of a derived card are
			// not held to this: they are the server's own uses ("how
			// far", "nearby"), which people ask about as questions.
			if asks < 0 {
				asks = 0
				if g.lex.Asks(toks) {
					asks = 1
				}
			}
			d.evident = asks == 1
			d.unasked = !d.evident
		}
		if sc.learnN[si] > 0 {
			g.weighLearned(sc, toks, si, &d, &cues)
		}
		if !d.evident && g.keep.server[si] {
			if fact < 0 {
				fact = 0
				if verb, self, ok := g.keep.fact(g.lex, toks); ok {
					fact, factEv = 1, Evidence{Kind: EvFact, Weight: weightWeak, Word: verb, Term: verb + " … " + self}
				}
			}
			if fact == 1 {
				d.evident = true
				d.unasked = false
				d.Score = max(d.Score+weightWeak, OfferAt)
				n := min(int(sc.nev[si]), maxEvidence-1)
				sc.ev[si][n] = factEv
				sc.nev[si] = uint8(n + 1)
			}
		}
		if !d.evident && g.past.server[si] {
			if past < 0 {
				past = 0
				if term, ok := g.past.refers(g.lex, toks); ok {
					word, _, _ := strings.Cut(term, " ")
					past, pastEv = 1, Evidence{Kind: EvPast, Weight: weightStrong, Word: word, Term: term}
				}
			}
			if past == 1 {
				d.evident = true
				d.unasked = false
				d.Score = max(d.Score+weightStrong, OfferAt)
				n := min(int(sc.nev[si]), maxEvidence-1)
				sc.ev[si][n] = pastEv
				sc.nev[si] = uint8(n + 1)
			}
		}
		d.Offered = d.Connected && d.evident
		d.evidence = sc.ev[si]
		d.nEvidence = sc.nev[si]
		out = append(out, d)
	}
	return out
}

func (g *Gate) reset(sc *scratch) {
	n := len(g.servers)
	if cap(sc.score) < n {
		sc.score = make([]int16, n)
		sc.desc = make([]int8, n)
		sc.ev = make([][maxEvidence]Evidence, n)
		sc.nev = make([]uint8, n)
		sc.best = make([]int32, n)
		sc.strong = make([]bool, n)
		sc.from = make([]int32, n)
		sc.spread = make([]bool, n)
		sc.learnN = make([]uint8, n)
		sc.learnAt = make([][2]int32, n)
		sc.learnFresh = make([]uint8, n)
	}
	sc.score, sc.desc, sc.ev, sc.nev, sc.best = sc.score[:n], sc.desc[:n], sc.ev[:n], sc.nev[:n], sc.best[:n]
	sc.strong, sc.from, sc.spread = sc.strong[:n], sc.from[:n], sc.spread[:n]
	sc.learnN, sc.learnAt, sc.learnFresh = sc.learnN[:n], sc.learnAt[:n], sc.learnFresh[:n]
	clear(sc.learnN)
	clear(sc.learnFresh)
	clear(sc.score)
	clear(sc.desc)
	clear(sc.nev)
	clear(sc.strong)
	clear(sc.spread)
	for i := range sc.from {
		sc.from[i] = -1
	}
	if len(sc.seen) != len(g.terms) {
		sc.seen = make([]uint32, len(g.terms))
		sc.stood = make([]uint32, len(g.terms))
		sc.gen = 0
	}
	sc.gen++
	if sc.gen == 0 { // wrapped: old marks could look current
		clear(sc.seen)
		clear(sc.stood)
		sc.gen = 1
	}
}

// count adds a term's weight to its server once per turn; at is the
// message position of the word that matched.
func (g *Gate) count(sc *scratch, id int32, word string, at int32) {
	g.countAtMost(sc, id, word, at, weightName)
}

// countAtMost is count with the term's weight capped at most: a file name
// is evidence of "file" as the everyday word is, whatever a card makes
// of the word.
func (g *Gate) countAtMost(sc *scratch, id int32, word string, at int32, most int8) {
	if t := g.once(sc, id); t != nil {
		g.add(sc, t, word, at, min(t.weight, most))
	}
}

// countAs counts a term at the weight the caller read from the phrase
// that matched it, once per turn like count.
func (g *Gate) countAs(sc *scratch, id int32, word string, at int32, weight int8) {
	if t := g.once(sc, id); t != nil {
		g.add(sc, t, word, at, weight)
	}
}

// once marks term id counted this turn and returns it, or nil when it, or
// the term it stands for, was counted already: a word counts once per turn
// however often the message says it.
func (g *Gate) once(sc *scratch, id int32) *term {
	if sc.seen[id] == sc.gen {
		return nil
	}
	sc.seen[id] = sc.gen
	t := &g.terms[id]
	if t.of != id {
		if sc.stood[t.of] == sc.gen {
			return nil
		}
		sc.stood[t.of] = sc.gen
	}
	return t
}

// add adds a matched term to its server's score and evidence.
func (g *Gate) add(sc *scratch, t *term, word string, at int32, weight int8) {
	ev := Evidence{Kind: t.kind, Weight: int(weight), Word: word, Term: t.label, Source: t.source}
	if t.kind == EvLearned {
		// Weighed in Check, once the rest of the message is read
		// (weighLearned): a learned word says what the message is about,
		// not yet that it asks for the server.
		if n := sc.learnN[t.server]; n < 2 {
			sc.learnAt[t.server][n] = at
		}
		sc.learnN[t.server]++
		if weight >= weightStrong { // indexed at LearnedWord.Weight: less once ignored
			sc.learnFresh[t.server]++
		}
		ev.Weight = weightWeak
		keep(sc, t.server, ev)
		return
	}
	w := int16(weight)
	if t.kind == EvDesc && weight == weightWeak {
		if sc.desc[t.server] >= maxDescPerTurn {
			return
		}
		sc.desc[t.server]++
	}
	sc.score[t.server] += w
	if weight > weightWeak {
		sc.strong[t.server] = true
	}
	switch f := sc.from[t.server]; {
	case f < 0:
		sc.from[t.server] = at
	case f != at:
		sc.spread[t.server] = true
	}
	keep(sc, t.server, ev)
}

// keep adds evidence to a server's explanation, strongest first.
func keep(sc *scratch, si int32, ev Evidence) {
	list := &sc.ev[si]
	n := int(sc.nev[si])
	// Keep the strongest evidence: insert in order of weight, then kind.
	pos := n
	for pos > 0 && stronger(ev, list[pos-1]) {
		pos--
	}
	if pos >= maxEvidence {
		return
	}
	if n == maxEvidence {
		n--
	}
	copy(list[pos+1:n+1], list[pos:n])
	list[pos] = ev
	sc.nev[si] = uint8(n + 1)
}

func stronger(a, b Evidence) bool {
	if a.Weight != b.Weight {
		return a.Weight > b.Weight
	}
	return a.Kind < b.Kind
}

// fileNames reads the file names of a message ("report-final.docx",
// "Budget 2026.xlsx"): people name the file instead of saying "file", so
// an extension of a kept file's type stands for the word "file" (which
// also pairs with a tool's verb: "move notes.txt" is move_file), and a
// document's also for "document". Only the extension is changed; the
// name's own words count as what they are.
func (g *Gate) fileNames(sc *scratch, toks []words.Token) {
	clear(sc.doc)
	sc.fileAt = -1
	for i := 1; i < len(toks); i++ {
		if !toks[i].Dotted {
			continue
		}
		file, doc := g.lex.FileType(toks[i].Fold)
		if !file {
			continue
		}
		if sc.doc == nil {
			sc.doc = map[int32]bool{}
		}
		sc.doc[int32(i)] = doc
		if sc.fileAt < 0 {
			sc.fileAt = int32(i)
		}
		toks[i].Stem = g.fileStem
	}
}

// route reads the way people ask about getting somewhere without the
// words a maps server's tools use: a route of two named places stands for
// "directions" and "route". A route is the server's own use when the
// message asks for it (a question or a request) and counts as the word
// would; told as a story ("I drove from Berlin to Hamburg"), or where
// another server's own words say what goes from one end to the other
// ("Forward the email from Anna to Peter", "Move the file from Downloads
// to Documents"), it is one weak word.
func (g *Gate) route(sc *scratch, msg string, toks []words.Token) {
	if at, end := words.RouteAt(toks); at >= 0 {
		most := int8(weightWeak)
		if g.lex.Request(msg, toks) && !g.strongElsewhere(sc) {
			most = weightName
		}
		g.countRoute(sc, toks, at, end, most)
	} else if words.Question(msg, toks) {
		// One named end in a question ("How long do I walk to the
		// Marienplatz?"): a weak word, as "to Anna" may be a letter's.
		if at, end := words.DestinationAt(toks); at >= 0 {
			g.countRoute(sc, toks, at, end, weightWeak)
		}
	}
}

// strongElsewhere reports whether a server other than the ones a route
// stands for has strong evidence in the message.
func (g *Gate) strongElsewhere(sc *scratch) bool {
	for i := range sc.best {
		sc.best[i] = -1
	}
	for _, st := range g.routeStems {
		g.bestOf(sc, g.uni.At(st))
	}
	for si, strong := range sc.strong {
		if strong && sc.best[si] < 0 {
			return true
		}
	}
	return false
}

// near reads phrases of nearness ("close to", "in der Nähe", "nearest")
// as the word "near".
func (g *Gate) near(sc *scratch, toks []words.Token) {
	if at, end := words.NearAt(toks); at >= 0 {
		for i := range sc.best {
			sc.best[i] = -1
		}
		g.bestOf(sc, g.uni.At(g.nearStem))
		// Asked where something near is ("Is there a pharmacy close to
		// the station?"), nearness is the server's own use.
		most := int8(weightWeak)
		if words.AsksWhere(toks) {
			most = weightStrong
		}
		for _, id := range sc.best {
			if id >= 0 {
				g.countAs(sc, id, joinFolds(toks[at:end]), int32(at), most)
			}
		}
	}
}

// countRoute counts the terms a route stands for, at most at weight most.
func (g *Gate) countRoute(sc *scratch, toks []words.Token, at, end int, most int8) {
	for i := range sc.best {
		sc.best[i] = -1
	}
	for _, st := range g.routeStems {
		g.bestOf(sc, g.uni.At(st))
	}
	word := joinFolds(toks[at:end])
	for _, id := range sc.best {
		if id >= 0 {
			g.countAtMost(sc, id, word, int32(at), most)
		}
	}
}

// matchNames looks for server names in windows of one to three words,
// joined without separators: "notebook lm" and "Notebook-LM" are the key
// "notebooklm".
func (g *Gate) matchNames(sc *scratch, toks []words.Token) {
	for i := range toks {
		sc.buf = sc.buf[:0]
		for w := 0; w < 3 && i+w < len(toks); w++ {
			sc.buf = append(sc.buf, toks[i+w].Fold...)
			if ids, ok := g.names.Get(string(sc.buf)); ok {
				word := toks[i].Fold
				if w > 0 {
					word = joinFolds(toks[i : i+w+1])
				}
				for _, id := range ids {
					g.count(sc, id, word, int32(i))
				}
			}
		}
	}
}

func joinFolds(toks []words.Token) string {
	var b strings.Builder
	for i, t := range toks {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t.Fold)
	}
	return b.String()
}

// matchWords counts single words. One message word gives each server at
// most one term (its heaviest), so a word that sits in a server's card and
// in its tool names is not counted twice.
func (g *Gate) matchWords(sc *scratch, toks []words.Token) {
	for _, p := range sc.content {
		t := toks[p]
		for i := range sc.best {
			sc.best[i] = -1
		}
		g.bestOf(sc, g.uni.At(t.Stem))
		doc, file := sc.doc[p]
		if file {
			if doc {
				g.bestOf(sc, g.uni.At(g.docStem))
			}
			word := toks[p-1].Fold + "." + t.Fold
			for _, id := range sc.best {
				if id >= 0 {
					g.countAtMost(sc, id, word, sc.fileAt, weightWeak)
				}
			}
			continue
		}
		if len(t.Stem) >= compoundHead+3 {
			// German compounds put the head last: "Kundentermine" ends in
			// "termin". Prefixes are never tried: "Terminals" is no "Termin".
			for k := 3; k <= len(t.Stem)-compoundHead; k++ {
				if ids, ok := g.uni.Get(t.Stem[k:]); ok {
					g.bestOf(sc, ids)
				}
			}
		}
		for _, id := range sc.best {
			if id >= 0 {
				g.count(sc, id, t.Fold, p)
			}
		}
	}
}

// matchJoined counts words written with hyphens ("to-do", "check-in") as
// the one word they are, when a card says them so (joinedWord); the same
// parts apart ("nothing to do") are other words.
func (g *Gate) matchJoined(sc *scratch, toks []words.Token) {
	for i := 0; i+1 < len(toks); i++ {
		if !toks[i+1].Joined {
			continue
		}
		sc.buf = append(sc.buf[:0], toks[i].Fold...)
		for w := 1; w < 3 && i+w < len(toks) && toks[i+w].Joined; w++ {
			sc.buf = append(sc.buf, toks[i+w].Fold...)
			for k := range sc.best {
				sc.best[k] = -1
			}
			sc.stem = words.StemBytes(append(sc.stem[:0], sc.buf...))
			g.bestOf(sc, g.uni.At(string(sc.stem)))
			for _, id := range sc.best {
				if id >= 0 {
					g.count(sc, id, joinFolds(toks[i:i+w+1]), int32(i))
				}
			}
		}
	}
}

func (g *Gate) bestOf(sc *scratch, ids []int32) {
	for _, id := range ids {
		if sc.seen[id] == sc.gen {
			continue
		}
		t := &g.terms[id]
		if b := sc.best[t.server]; b < 0 || t.weight > g.terms[b].weight {
			sc.best[t.server] = id
		}
	}
}

// matchPairs counts tool pairs and multi-word card phrases: two words no
// more than pairWindow non-function words apart.
func (g *Gate) matchPairs(sc *scratch, toks []words.Token) {
	for a := 0; a < len(sc.content); a++ {
		ta := toks[sc.content[a]]
		for b := a + 1; b < len(sc.content) && b <= a+pairWindow; b++ {
			tb := toks[sc.content[b]]
			sc.buf = append(append(append(sc.buf[:0], ta.Stem...), ' '), tb.Stem...)
			phrases, _ := g.pairs.Get(string(sc.buf))
			sc.buf = appendPairKey(sc.buf[:0], ta.Stem, tb.Stem)
			tools, _ := g.tools.Get(string(sc.buf))
			for _, ids := range [2][]int32{phrases, tools} {
				for _, id := range ids {
					g.count(sc, id, ta.Fold+" "+tb.Fold, sc.content[a])
				}
			}
		}
	}
}

// Vocabulary returns a server's derived usage card: every term the gate
// matches for it, strongest first. This is what the owner reads (and edits
// through the card in the config) for a server added by hand.
func (g *Gate) Vocabulary(server string) []Evidence {
	si := slices.Index(g.servers, server)
	if si < 0 {
		return nil
	}
	var out []Evidence
	for _, t := range g.terms {
		if int(t.server) == si {
			out = append(out, Evidence{Kind: t.kind, Weight: int(t.weight), Word: t.label, Term: t.label, Source: t.source})
		}
	}
	slices.SortStableFunc(out, func(a, b Evidence) int {
		if c := cmp.Compare(b.Weight, a.Weight); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return cmp.Compare(a.Word, b.Word)
	})
	return out
}
