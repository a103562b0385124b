package words

import (
	_ "embed"
	"strings"
	"sync"
)

// thesaurusText is the generated table of related words (gen/thesaurus):
// one line per stem, "stem TAB same TAB forms TAB synonyms TAB family TAB
// near TAB derived",
// sorted by stem. It stays in the binary's read-only data; a lookup is a
// binary search over its bytes (see table), so nothing is parsed or copied.
//
//go:embed thesaurus.txt
var thesaurusText string

// familiesText is the table's families of times, one per line, generated
// from thesaurus.txt by gen/families, so that no turn scans the whole
// table to find them.
//
//go:embed families.txt
var familiesText string

// Thesaurus is the table of words a person may use in place of a word:
// synonyms and translations (English and German), and near words
// (broader, narrower, siblings in a small family such as the weekdays,
// parts such as the afternoon of a day). The gate and the skill scorer
// expand a card's or skill's own words with it when they build their
// indexes, never per message. It is immutable and safe for concurrent use.
type Thesaurus struct {
	table    table
	families func() [][]string
}

// DefaultThesaurus returns the table built into the binary.
var DefaultThesaurus = sync.OnceValue(func() *Thesaurus { return newThesaurus(thesaurusText, familiesText) })

func newThesaurus(text, families string) *Thesaurus {
	return &Thesaurus{
		table:    newTable(text, '\t'),
		families: sync.OnceValue(func() [][]string { return parseFamilies(families) }),
	}
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
	line, ok := find(t.table, stem)
	if !ok {
		return rels
	}
	for r := range Derived {
		rels[r], line, _ = strings.Cut(line, "\t")
	}
	rels[Derived] = line
	return rels
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
	_, ok := find(t.table, stem)
	return ok
}

// Families returns the table's families of times (weekdays and the week,
// the parts of a day and the days around today, the months), each the
// stems that its family column links, directly or through one another:
// "Monday" and "weekend" are of one family, "tomorrow", "afternoon" and
// "Abend" of another. Each family is sorted, and the families come in the
// order of their first stem in the table. Read once; the result must not
// be changed.
func (t *Thesaurus) Families() [][]string { return t.families() }

// parseFamilies reads families.txt: after its header of "#" lines, one
// family per line, its stems separated by spaces. The stems are slices of
// the embedded text.
func parseFamilies(text string) [][]string {
	var out [][]string
	for line := range strings.Lines(text) {
		if fam := strings.Fields(line); len(fam) > 0 && !strings.HasPrefix(line, "#") {
			out = append(out, fam)
		}
	}
	return out
}
