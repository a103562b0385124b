package words

import (
	_ "embed"
	"sort"
	"strings"
	"sync"
)

// thesaurusText is the generated table of related words (gen/thesaurus):
// one line per stem, "stem TAB same TAB forms TAB synonyms TAB family TAB
// near TAB derived",
// sorted by stem. It stays in the binary's read-only data; a lookup is a
// binary search over its lines, so nothing is parsed or copied.
//
//go:embed thesaurus.txt
var thesaurusText string

// Thesaurus is the table of words a person may use in place of a word:
// synonyms and translations (English and German), and near words
// (broader, narrower, siblings in a small family such as the weekdays,
// parts such as the afternoon of a day). The gate and the skill scorer
// expand a card's or skill's own words with it when they build their
// indexes, never per message. It is immutable and safe for concurrent use.
type Thesaurus struct {
	text     string
	lines    []int32 // offsets of the data lines, in stem order
	families func() [][]string
}

// DefaultThesaurus returns the table built into the binary. Its line index
// is made at first use.
var DefaultThesaurus = sync.OnceValue(func() *Thesaurus { return newThesaurus(thesaurusText) })

func newThesaurus(text string) *Thesaurus {
	t := &Thesaurus{text: text}
	t.families = sync.OnceValue(t.buildFamilies)
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text) - off
		}
		if text[off] != '#' && end > 0 {
			t.lines = append(t.lines, int32(off))
		}
		off += end + 1
	}
	return t
}

// Relation says how a word relates to the word it was looked up for.
type Relation uint8

// Relations, from closest to loosest.
const (
	// Same is the same word in the other language ("Freitag" for
	// "Friday").
	Same Relation = iota
	// Form is the same word inflected ("replied" for "reply").
	Form
	// Synonym is the same meaning in the same language ("answer" for
	// "reply"), or a looser translation.
	Synonym
	// Family is another time of one family ("Saturday", "Samstag" for
	// "Friday"; "evening" for "afternoon").
	Family
	// Near is a broader or narrower word, or a sibling or part in a
	// small family ("weekday" for "Friday", "truck" for "car").
	Near
	// Derived is the same idea in another part of speech: the adjective
	// whose value a noun measures ("far", "nearest" for "distance") or
	// the verb a noun is made from ("remember" for "memory"). People ask
	// with the adjective or the verb what a tool names with the noun.
	Derived
)

// Related returns the words related to a stem, one space-separated list
// of stems per Relation (Same, Form, Synonym, Family, Near, Derived), commonest
// first; all are "" for a stem the table does not know. The strings are
// slices of the table: no allocation.
func (t *Thesaurus) Related(stem string) (rels [Derived + 1]string) {
	i := sort.Search(len(t.lines), func(i int) bool { return t.key(i) >= stem })
	if i == len(t.lines) || t.key(i) != stem {
		return rels
	}
	line := t.text[int(t.lines[i])+len(stem)+1:]
	if end := strings.IndexByte(line, '\n'); end >= 0 {
		line = line[:end]
	}
	for r := range Derived {
		rels[r], line, _ = strings.Cut(line, "\t")
	}
	rels[Derived] = line
	return rels
}

// Len returns how many stems the table holds.
func (t *Thesaurus) Len() int { return len(t.lines) }

func (t *Thesaurus) key(i int) string {
	line := t.text[t.lines[i]:]
	if k := strings.IndexByte(line, '\t'); k >= 0 {
		return line[:k]
	}
	return line
}

// EachRelated calls fn for every word related to stem, closest first.
func (t *Thesaurus) EachRelated(stem string, fn func(rel string, how Relation)) {
	for r, list := range t.Related(stem) {
		each(list, func(s string) { fn(s, Relation(r)) })
	}
}

func each(list string, fn func(string)) {
	for list != "" {
		var w string
		w, list, _ = strings.Cut(list, " ")
		if w != "" {
			fn(w)
		}
	}
}

// has reports whether the table knows a stem, without allocating.
func (t *Thesaurus) has(stem []byte) bool {
	i := sort.Search(len(t.lines), func(i int) bool { return t.key(i) >= string(stem) })
	return i < len(t.lines) && t.key(i) == string(stem)
}

// Families returns the table's families of times (weekdays and the week,
// the parts of a day and the days around today, the months), each the
// stems that its family column links, directly or through one another:
// "Monday" and "weekend" are of one family, "tomorrow", "afternoon" and
// "Abend" of another. Computed once; the result must not be changed.
func (t *Thesaurus) Families() [][]string { return t.families() }

func (t *Thesaurus) buildFamilies() [][]string {
	links := map[string][]string{}
	for i := range t.lines {
		k := t.key(i)
		each(t.Related(k)[Family], func(w string) {
			links[k] = append(links[k], w)
			links[w] = append(links[w], k)
		})
	}
	var out [][]string
	seen := map[string]bool{}
	for i := range t.lines { // in stem order, so the result is stable
		k := t.key(i)
		if seen[k] || len(links[k]) == 0 {
			continue
		}
		fam := []string{k}
		seen[k] = true
		for j := 0; j < len(fam); j++ {
			for _, w := range links[fam[j]] {
				if !seen[w] {
					seen[w] = true
					fam = append(fam, w)
				}
			}
		}
		sort.Strings(fam)
		out = append(out, fam)
	}
	return out
}
