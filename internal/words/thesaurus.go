package words

import (
	_ "embed"
	"iter"
	"strings"
	"sync"
)

// thesaurusPacked is the generated table of related words
// (gen/thesaurus writes it as text, thesaurus.txt, one line per stem,
// "stem TAB same TAB forms TAB synonyms TAB family TAB near TAB derived";
// gen/packed packs it, see packed.go). It stays in the binary's read-only
// data; a lookup is a binary search over its bytes (see table), so
// nothing is parsed or copied.
//
//go:embed thesaurus.packed
var thesaurusPacked string

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
var DefaultThesaurus = sync.OnceValue(func() *Thesaurus { return newThesaurus(thesaurusPacked, familiesText) })

func newThesaurus(packed, families string) *Thesaurus {
	return &Thesaurus{
		table:    newTable(packed, entrySep),
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

// Words returns the words related to a stem in one way, commonest first;
// none for a stem the table does not know. The words are slices of the
// table: nothing is allocated.
func (t *Thesaurus) Words(stem string, how Relation) iter.Seq[string] {
	return func(yield func(string) bool) {
		if groups, ok := find(t.table, stem); ok {
			packedWords(t.table.text, packedGroup(groups, how), yield)
		}
	}
}

// Has reports whether a stem has words related to it in one way:
// Has(stem, Family) says it is a time of one of the families.
func (t *Thesaurus) Has(stem string, how Relation) bool {
	for range t.Words(stem, how) {
		return true
	}
	return false
}

// Knows reports whether the table relates any word to a stem.
func (t *Thesaurus) Knows(stem string) bool {
	groups, ok := find(t.table, stem)
	return ok && groups != ""
}

// EachRelated calls fn for every word related to stem, closest first.
func (t *Thesaurus) EachRelated(stem string, fn func(rel string, how Relation)) {
	groups, ok := find(t.table, stem)
	if !ok {
		return
	}
	for how := range Derived + 1 {
		group, rest, _ := strings.Cut(groups, string(rune(groupSep)))
		packedWords(t.table.text, group, func(w string) bool { fn(w, how); return true })
		groups = rest
	}
}

// has reports whether the table has an entry for a stem, without
// allocating.
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
