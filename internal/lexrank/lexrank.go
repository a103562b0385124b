// Package lexrank ranks short documents with weighted fields against a
// message, with no model: the skill scorer (S3) is built on it. Each
// document's fields (name, trigger words, related words, description,
// headings, body) are cut into stems by internal/words, expanded with the
// glossary's synonyms, and indexed once; a query is tokenized, split into
// compounds the index knows ("Terminkalender" -> termin + kalender), and
// scored BM25F-style: field weights times a saturating term frequency times
// how rare the stem is among the documents.
package lexrank

import (
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/jarvisbot/jarvisbot/internal/frozen"
	"github.com/jarvisbot/jarvisbot/internal/words"
)

// Field is one weighted part of a document.
type Field struct {
	Text   string
	Weight float64
	// Phrases, when set, are matched as whole phrases too (trigger words
	// such as "pull request" count more as a phrase than as two words),
	// with PhraseWeight, or Weight when that is zero.
	Phrases      []string
	PhraseWeight float64
	// Paraphrase, when set, indexes the words the thesaurus relates to
	// the field's words too (words.Thesaurus): "tunes" finds a field that
	// says "music", "Freitag" one that says "Friday", more weakly than
	// the field's own words do.
	Paraphrase bool
	// Trigger marks the words the document's author listed as what it is
	// about: one of them, said as written, is strong evidence for this
	// document even when it is an everyday word ("Mails", "songs"), though
	// not for another document that merely mentions it.
	Trigger bool
}

// Doc is one document to rank.
type Doc struct {
	Fields []Field
	// ParaphraseCap bounds what the thesaurus's synonyms and near words
	// add to the document's score for one message; 0 leaves it unbounded.
	// Set it below the score that lets a document act, and a paraphrase
	// alone never does.
	ParaphraseCap float64
	// Names are the document's proper names ("monday" of monday.com):
	// their words count as written but are never paraphrased, since a
	// brand's name is no weekday.
	Names []string
}

// Hit is a ranked document.
type Hit struct {
	Doc   int
	Score float64
	// Matched is how many distinct message stems matched the document:
	// its own words, or the thesaurus's words for them when distinctive
	// (an everyday paraphrase such as "need" for a description's "wants"
	// is support for the score, not a second piece of evidence).
	Matched int32
	// Strong is how many of them can point at a subject by themselves: a
	// distinctive word (words.Lexicon.Distinctive) or a whole phrase. A
	// hit with Matched 1 and Strong 0 rests on one everyday word ("file",
	// "event") or common verb ("select").
	Strong int32
	// Listed is how many of them are words the document's author listed
	// as what it is about (Field.Trigger): everyday or not, they show the
	// message is about the document's subject ("Mails" for a mail
	// manual), unlike an everyday word of its prose ("time").
	Listed int32
}

type posting struct {
	doc    int32
	weight float32 // summed field weight, before idf
	para   bool    // a thesaurus paraphrase: capped per document
	// strength says more about the stem for this document: strongAlways
	// for its trigger words (Field.Trigger, counted in Hit.Listed),
	// strongNever for a one-word name that names a time ("Monday" of
	// monday.com), which is neither listed nor strong whatever its class.
	strength int8
	// head marks a word a compound may end in and still mean
	// (Index.compound): a trigger word, or a time of a family the
	// document's own words name ("übermorgen" ends in "morgen").
	head bool
}

const (
	strongAlways int8 = 1
	strongNever  int8 = -1
)

// Index is an immutable ranking index; safe for concurrent use.
type Index struct {
	n int
	// The index, frozen once built (internal/frozen): a ranker lives as
	// long as its skills do.
	uni     frozen.Map[posting]
	pairs   frozen.Map[posting] // "stem stem" phrases
	maxLen  int                 // longest indexed stem, bounds compound splitting
	caps    []float32           // per document: Doc.ParaphraseCap, 0 unbounded
	lex     *words.Lexicon
	scratch sync.Pool
}

type scratch struct {
	z      words.Tokenizer
	score  []float32
	para   []float32 // per document: what paraphrases added, before the cap
	hits   []int32
	seen   map[string]bool
	strong []int32
	listed []int32
	buf    []byte
	stems  []string
	phrase []string
	heads  []posting // compound: the postings of a last word that may head it
}

// synonymWeight is the share of a field's weight that a glossary synonym
// gets: "Ordner" finds a skill that says "folder", a little less surely
// than "folder" does.
const synonymWeight = 0.7

// Shares of a field's weight for the thesaurus's relations. A translation
// ("Freitag" for "Friday") is the same word and counts like a glossary
// synonym. Another time of the same family ("Saturday" where the author
// listed weekdays) asks about the same schedule: it counts like a synonym
// but uncapped. A synonym ("answered" for "reply") or a near word ("Saturday"
// for "Friday") is a paraphrase: good support, but a word can have a
// sense the document never meant ("print" for "publish"), so what
// paraphrases add to one document is capped (Doc.ParaphraseCap).
const (
	thesaurusSynonym = 0.5
	thesaurusNear    = 0.25
)

// New indexes docs.
func New(docs []Doc) *Index {
	fams := timeFamilyOf()
	ix := &Index{n: len(docs), lex: words.Default(), caps: make([]float32, len(docs))}
	// Postings are filed flat and sorted once when frozen, instead of
	// growing a slice per stem (frozen.Postings).
	var uni, pairs frozen.Postings[posting]
	var z words.Tokenizer
	// Each document's tallies, in maps that the next document reuses.
	w, pw := map[string]float64{}, map[string]float64{}
	// trans and para hold the thesaurus's words, each at the best weight
	// one of the document's words gives it: ten weekdays that all relate
	// to "day" make "day" no stronger than one does.
	trans, para := map[string]float64{}, map[string]float64{}
	names, strong := map[string]bool{}, map[string]int8{}
	// The time families the document's words name, with the best weight
	// and how many distinct words of each it has.
	famW, famN, famSeen := map[int]float64{}, map[int]int{}, map[string]bool{}
	tf := map[string]int{}
	for d, doc := range docs {
		clear(w)
		clear(pw)
		clear(trans)
		clear(para)
		clear(names)
		clear(strong)
		clear(famW)
		clear(famN)
		clear(famSeen)
		ix.caps[d] = float32(doc.ParaphraseCap)
		for _, n := range doc.Names {
			for _, t := range z.Tokenize(n) {
				names[strings.Clone(t.Stem)] = true
			}
		}
		for _, n := range doc.Names {
			// A brand named after a time ("Monday") is not what a
			// message about that day means: its one-word name alone
			// is weak, even where its author lists it.
			if ts := z.Tokenize(n); len(ts) == 1 && isTimeWord(ts[0].Stem) {
				strong[strings.Clone(ts[0].Stem)] = strongNever
			}
		}
		for _, f := range doc.Fields {
			// Saturate term frequency within a field: a body that says
			// "calendar" ten times is not ten times about calendars.
			clear(tf)
			for _, t := range z.Tokenize(f.Text) {
				if ix.counts(t.Stem) {
					tf[t.Stem]++
					if f.Trigger && strong[t.Stem] != strongNever {
						strong[strings.Clone(t.Stem)] = strongAlways
					}
				}
			}
			for stem, n := range tf {
				sat := float64(n) / (float64(n) + 0.5)
				w[stem] += f.Weight * sat
				for _, rel := range ix.lex.Related(stem) {
					if !strings.Contains(rel, " ") {
						w[rel] += f.Weight * sat * synonymWeight
					}
				}
				if f.Paraphrase && !names[stem] {
					ix.paraphrase(trans, para, stem, f.Weight*sat)
					if fam, ok := fams[stem]; ok && !famSeen[stem] {
						famSeen[stem] = true
						famN[fam]++
						famW[fam] = max(famW[fam], f.Weight*sat)
					}
				}
			}
			pwt := f.PhraseWeight
			if pwt == 0 {
				pwt = f.Weight
			}
			for _, p := range f.Phrases {
				ph := ix.lex.ContentPhrase(&z, p)
				if strings.Contains(ph, " ") {
					pw[ph] += pwt
				}
			}
		}
		for fam, n := range famN {
			// One word of a family ("date" of "due date", "day") is
			// a passing mention; two or more (the weekdays, "tomorrow"
			// and "Termin") make the document one about times.
			if n < 2 {
				delete(famW, fam)
			}
		}
		heads := ix.timeFamilies(trans, para, famW)
		for stem, v := range trans {
			if _, own := w[stem]; !own {
				w[stem] = v
			}
		}
		for stem, v := range w {
			uni.Add(stem, posting{doc: int32(d), weight: float32(v), strength: strong[stem], head: strong[stem] == strongAlways || heads[stem]})
			ix.maxLen = max(ix.maxLen, len(stem))
		}
		for stem, v := range para {
			if _, own := w[stem]; !own {
				uni.Add(stem, posting{doc: int32(d), weight: float32(v), para: true})
				ix.maxLen = max(ix.maxLen, len(stem))
			}
		}
		for ph, v := range pw {
			pairs.Add(ph, posting{doc: int32(d), weight: float32(v)})
		}
	}
	ix.uni, ix.pairs = uni.Freeze(), pairs.Freeze()
	return ix
}

// paraphrase records the thesaurus's words for one of a document's stems.
func (ix *Index) paraphrase(trans, para map[string]float64, stem string, weight float64) {
	words.DefaultThesaurus().EachRelated(stem, func(rel string, how words.Relation) {
		if !ix.counts(rel) {
			return
		}
		switch how {
		case words.Same, words.Form:
			trans[rel] = max(trans[rel], weight*synonymWeight)
		case words.Family:
			trans[rel] = max(trans[rel], weight*thesaurusSynonym)
		case words.Synonym:
			para[rel] = max(para[rel], weight*thesaurusSynonym)
		default:
			para[rel] = max(para[rel], weight*thesaurusNear)
		}
	})
}

// counts reports whether a stem can be evidence: function words and
// generic words never are.
func (ix *Index) counts(stem string) bool {
	if len(stem) < 2 {
		return false
	}
	switch ix.lex.Class(stem) {
	case words.Stop, words.Generic:
		return false
	}
	return true
}

// Rank scores every document against msg and returns the hits with a
// positive score, best first, appended to out.
func (ix *Index) Rank(msg string, out []Hit) []Hit {
	sc, _ := ix.scratch.Get().(*scratch)
	if sc == nil {
		sc = &scratch{seen: map[string]bool{}}
	}
	defer ix.scratch.Put(sc)
	if cap(sc.score) < ix.n {
		sc.score = make([]float32, ix.n)
		sc.para = make([]float32, ix.n)
		sc.hits = make([]int32, ix.n)
		sc.strong = make([]int32, ix.n)
		sc.listed = make([]int32, ix.n)
	}
	sc.score = sc.score[:ix.n]
	clear(sc.score)
	sc.para = sc.para[:ix.n]
	clear(sc.para)
	matched := sc.hits[:ix.n]
	clear(matched)
	sc.strong = sc.strong[:ix.n]
	clear(sc.strong)
	sc.listed = sc.listed[:ix.n]
	clear(sc.listed)
	clear(sc.seen)
	sc.stems = sc.stems[:0]
	sc.phrase = sc.phrase[:0]
	for _, t := range sc.z.Tokenize(msg) {
		if ix.counts(t.Stem) {
			sc.stems = append(sc.stems, t.Stem)
		}
		// Phrases are matched on every word but function words, as
		// ContentPhrase indexed them: "pull request" holds a generic word.
		if ix.lex.Class(t.Stem) != words.Stop {
			sc.phrase = append(sc.phrase, t.Stem)
		}
	}
	for _, stem := range sc.stems {
		if sc.seen[stem] {
			continue
		}
		sc.seen[stem] = true
		if ps, ok := ix.uni.Get(stem); ok {
			ix.add(sc, ix.idf(len(ps)), stem, ps, matched)
			continue
		}
		ix.compound(sc, stem, matched)
	}
	for i := 0; i+1 < len(sc.phrase); i++ {
		sc.buf = append(append(append(sc.buf[:0], sc.phrase[i]...), ' '), sc.phrase[i+1]...)
		if ps, ok := ix.pairs.Get(string(sc.buf)); ok {
			ix.add(sc, ix.idf(len(ps)), string(sc.buf), ps, matched)
		}
	}
	for d, p := range sc.para {
		if c := ix.caps[d]; c > 0 {
			p = min(p, c)
		}
		sc.score[d] += p
	}
	start := len(out)
	for d, s := range sc.score {
		if s > 0 {
			out = append(out, Hit{Doc: d, Score: float64(s), Matched: matched[d], Strong: sc.strong[d], Listed: sc.listed[d]})
		}
	}
	slices.SortFunc(out[start:], func(a, b Hit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return a.Doc - b.Doc
	})
	return out
}

// idf is BM25's inverse document frequency of a stem or phrase that docs
// of the documents hold, floored so that one every document holds still
// counts a little. A key's postings are its documents, one each (Freeze
// keeps one posting per document and key), so the index keeps no table of
// counts or idfs beside them: building one cost a third of what New
// allocates.
func (ix *Index) idf(docs int) float32 {
	n := float64(docs)
	return float32(max(0.1, math.Log(1+(float64(ix.n)-n+0.5)/(n+0.5))))
}

// add scores the postings ps of key, whose idf is idf.
func (ix *Index) add(sc *scratch, idf float32, key string, ps []posting, matched []int32) {
	strong := strings.IndexByte(key, ' ') >= 0 || ix.lex.Distinctive(key)
	for _, p := range ps {
		if p.para {
			sc.para[p.doc] += p.weight * idf
		} else {
			sc.score[p.doc] += p.weight * idf
		}
		if !p.para || strong {
			matched[p.doc]++
		}
		if strong && p.strength != strongNever {
			sc.strong[p.doc]++
		}
		if p.strength == strongAlways {
			sc.listed[p.doc]++
		}
	}
}

// compound splits a word the index does not know into two it does, the way
// German builds words: "terminkalender" -> "termin" + "kalender",
// "lieblingssongs" -> "lieblings" + "song". Both parts must be indexed and
// at least four letters, so "Terminals" never becomes "Termin".
func (ix *Index) compound(sc *scratch, stem string, matched []int32) {
	const minPart = 4
	if len(stem) < 2*minPart {
		return
	}
	for k := minPart; k <= len(stem)-minPart; k++ {
		head := stem[:k]
		tail := stem[k:]
		hp, ok := ix.uni.Get(head)
		if !ok {
			// A linking s ("Lieblings-song") or n/en.
			continue
		}
		for _, link := range []string{"", "s", "n", "en", "e"} {
			if len(tail) < len(link)+minPart || tail[:len(link)] != link {
				continue
			}
			rest := words.Stem(tail[len(link):])
			if tp, ok := ix.uni.Get(rest); ok {
				ix.add(sc, ix.idf(len(hp)), head, hp, matched)
				ix.add(sc, ix.idf(len(tp)), rest, tp, matched)
				return
			}
		}
	}
	// A German compound names a kind of its last word: "Lieblingssongs"
	// are songs, "Geburtstagskalender" a calendar, "übermorgen" a
	// morning's day, whatever the first part is. When that last word is
	// one an author listed as what a document is about, or a time of a
	// family the document's words name, the compound counts as that word
	// for that document; the longest such word wins.
	for k := minPart; k <= len(stem)-minPart; k++ {
		sc.buf = append(sc.buf[:0], stem[k:]...)
		rest := words.StemBytes(sc.buf)
		ps, ok := ix.uni.Get(string(rest))
		if !ok {
			continue
		}
		n := len(sc.heads)
		for _, p := range ps {
			if p.head {
				sc.heads = append(sc.heads, p)
			}
		}
		if len(sc.heads) > n {
			ix.add(sc, ix.idf(len(ps)), string(rest), sc.heads[n:], matched) // the idf of all its documents
			sc.heads = sc.heads[:n]
			return
		}
	}
}

// isTimeWord reports whether the thesaurus places a stem among the times
// of one family (weekdays, parts of a day, months).
func isTimeWord(stem string) bool {
	return words.DefaultThesaurus().Has(stem, words.Family)
}

// timeFamilyOf maps every stem of the thesaurus's families of times
// (words.Thesaurus.Families) to its family's number. Built once.
var timeFamilyOf = sync.OnceValue(func() map[string]int {
	m := map[string]int{}
	for i, fam := range words.DefaultThesaurus().Families() {
		for _, w := range fam {
			m[w] = i
		}
	}
	return m
})

// timeFamilies gives a document that names times of a family (weekdays,
// "tomorrow", "evening") the whole family, at the share of a near word:
// a manual whose author listed "tomorrow" and the weekdays is asked about
// "this afternoon" and "übermorgen" too. Beside the family's own words
// their synonyms support the document as paraphrases ("Vormittag" for
// "morning"). It returns the family words, which a compound may end in.
func (ix *Index) timeFamilies(trans, para map[string]float64, famW map[int]float64) map[string]bool {
	if len(famW) == 0 {
		return nil
	}
	th := words.DefaultThesaurus()
	fams := th.Families()
	heads := map[string]bool{}
	for i, weight := range famW {
		v := weight * thesaurusNear
		for _, m := range fams[i] {
			if !ix.counts(m) {
				continue
			}
			heads[m] = true
			trans[m] = max(trans[m], v)
			th.EachRelated(m, func(rel string, how words.Relation) {
				if (how == words.Same || how == words.Synonym) && ix.counts(rel) {
					para[rel] = max(para[rel], v)
				}
			})
		}
	}
	return heads
}
