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
}

// Doc is one document to rank.
type Doc struct {
	Fields []Field
}

// Hit is a ranked document.
type Hit struct {
	Doc   int
	Score float64
	// Matched is how many distinct message stems matched the document.
	Matched int
	// Strong is how many of them can point at a subject by themselves: a
	// distinctive word (words.Lexicon.Distinctive) or a whole phrase. A
	// hit with Matched 1 and Strong 0 rests on one everyday word ("file",
	// "event") or common verb ("select").
	Strong int
}

type posting struct {
	doc    int32
	weight float32 // summed field weight, before idf
}

// Index is an immutable ranking index; safe for concurrent use.
type Index struct {
	n       int
	uni     map[string][]posting
	pairs   map[string][]posting // "stem stem" phrases
	idf     map[string]float32
	maxLen  int // longest indexed stem, bounds compound splitting
	lex     *words.Lexicon
	scratch sync.Pool
}

type scratch struct {
	z      words.Tokenizer
	score  []float32
	hits   []int32
	seen   map[string]bool
	strong []int32
	buf    []byte
	stems  []string
	phrase []string
}

// synonymWeight is the share of a field's weight that a glossary synonym
// gets: "Ordner" finds a skill that says "folder", a little less surely
// than "folder" does.
const synonymWeight = 0.7

// New indexes docs.
func New(docs []Doc) *Index {
	ix := &Index{n: len(docs), uni: map[string][]posting{}, pairs: map[string][]posting{}, idf: map[string]float32{}, lex: words.Default()}
	var z words.Tokenizer
	df := map[string]int{}
	for d, doc := range docs {
		w := map[string]float64{}
		pw := map[string]float64{}
		for _, f := range doc.Fields {
			// Saturate term frequency within a field: a body that says
			// "calendar" ten times is not ten times about calendars.
			tf := map[string]int{}
			for _, t := range z.Tokenize(f.Text) {
				if ix.counts(t.Stem) {
					tf[t.Stem]++
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
		for stem, v := range w {
			ix.uni[stem] = append(ix.uni[stem], posting{int32(d), float32(v)})
			df[stem]++
			ix.maxLen = max(ix.maxLen, len(stem))
		}
		for ph, v := range pw {
			ix.pairs[ph] = append(ix.pairs[ph], posting{int32(d), float32(v)})
			df[ph]++
		}
	}
	for stem, n := range df {
		// BM25's idf, floored so a stem every document has still counts a
		// little.
		ix.idf[stem] = float32(max(0.1, math.Log(1+(float64(ix.n)-float64(n)+0.5)/(float64(n)+0.5))))
	}
	return ix
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
		sc.hits = make([]int32, ix.n)
		sc.strong = make([]int32, ix.n)
	}
	sc.score = sc.score[:ix.n]
	clear(sc.score)
	matched := sc.hits[:ix.n]
	clear(matched)
	sc.strong = sc.strong[:ix.n]
	clear(sc.strong)
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
		if ps, ok := ix.uni[stem]; ok {
			ix.add(sc, stem, ps, matched)
			continue
		}
		ix.compound(sc, stem, matched)
	}
	for i := 0; i+1 < len(sc.phrase); i++ {
		sc.buf = append(append(append(sc.buf[:0], sc.phrase[i]...), ' '), sc.phrase[i+1]...)
		if ps, ok := ix.pairs[string(sc.buf)]; ok {
			ix.add(sc, string(sc.buf), ps, matched)
		}
	}
	start := len(out)
	for d, s := range sc.score {
		if s > 0 {
			out = append(out, Hit{Doc: d, Score: float64(s), Matched: int(matched[d]), Strong: int(sc.strong[d])})
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

func (ix *Index) add(sc *scratch, key string, ps []posting, matched []int32) {
	idf := ix.idf[key]
	strong := strings.IndexByte(key, ' ') >= 0 || ix.lex.Distinctive(key)
	for _, p := range ps {
		sc.score[p.doc] += p.weight * idf
		matched[p.doc]++
		if strong {
			sc.strong[p.doc]++
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
		hp, ok := ix.uni[head]
		if !ok {
			// A linking s ("Lieblings-song") or n/en.
			continue
		}
		for _, link := range []string{"", "s", "n", "en", "e"} {
			if len(tail) < len(link)+minPart || tail[:len(link)] != link {
				continue
			}
			rest := words.Stem(tail[len(link):])
			if tp, ok := ix.uni[rest]; ok {
				ix.add(sc, head, hp, matched)
				ix.add(sc, rest, tp, matched)
				return
			}
		}
	}
}
