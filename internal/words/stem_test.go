package words

import "testing"

// TestStemGermanParticiplesC5S3: a German past participle meets its verb
// ("geantwortet" and "antworten", "gebuchte" and "buchen", "gelesen" and
// "lesen"), while words that only begin with "ge" keep their own stem: the
// nouns a thesaurus knows ("Gedanken" are no "danken", "Geschichten" stay
// "Geschichte"), nouns ending in -heit, -keit, -schaft or -icht, short
// words, and "gestern".
func TestStemGermanParticiplesC5S3(t *testing.T) {
	same := [][]string{
		{"antworten", "geantwortet", "antwort"},
		{"buchen", "gebucht", "gebuchte", "gebuchten"},
		{"spielen", "gespielt"},
		{"suchen", "gesucht"},
		{"arbeiten", "gearbeitet"},
		{"senden", "gesendet"},
		{"offnen", "geoffnet"},
		{"planen", "geplant"},
		{"lesen", "gelesen"},
		{"schlafen", "geschlafen"},
		{"sehen", "gesehen"},
		{"geburtstag", "geburtstage"},
		{"gedanke", "gedanken"},
		{"geschichte", "geschichten"},
		{"gemeinde", "gemeinden"},
	}
	for _, g := range same {
		for _, w := range g[1:] {
			if Stem(w) != Stem(g[0]) {
				t.Errorf("Stem(%q) = %q, Stem(%q) = %q: want equal", w, Stem(w), g[0], Stem(g[0]))
			}
		}
	}
	// Left as they are: the participle rule must not cut these.
	kept := []string{"geburtstag", "gemuse", "gestern", "gesundheit", "gelegenheit", "gesellschaft",
		"gewicht", "gesicht", "gericht", "gebiet", "gerat", "gewalt", "gegen", "gehen", "geben", "gelten", "gelb",
		"gedacht", "gekannt", "geworden", "gefunden"}
	for _, w := range kept {
		if got := Stem(w); len(got) < 4 || got[:2] != "ge" {
			t.Errorf("Stem(%q) = %q: a word that is no participle keeps its \"ge\"", w, got)
		}
	}
	// The stem is the front of the buffer, as the tokenizer reads it.
	var z Tokenizer
	for _, tc := range [][2]string{{"geantwortet", "antwort"}, {"Gelesen", "lesen"}, {"gebuchten", "buch"}} {
		if toks := z.Tokenize(tc[0]); len(toks) != 1 || toks[0].Stem != tc[1] {
			t.Errorf("Tokenize(%q) = %+v, want the stem %q", tc[0], toks, tc[1])
		}
	}
	// "schrieb" of "geschrieben" is the verb's past: a strong verb's
	// participle meets its past, never its noun.
	if Stem("geschrieben") != Stem("schrieb") {
		t.Errorf("Stem(geschrieben) = %q, want %q", Stem("geschrieben"), Stem("schrieb"))
	}
}

// TestStemParticipleAllocatesNothing: the tokenizer stems every word of
// every message; a participle costs no allocation either.
func TestStemParticipleAllocatesNothing(t *testing.T) {
	DefaultThesaurus() // its one-time index is not the stemmer's cost
	buf := make([]byte, 0, 32)
	for _, w := range []string{"gesehen", "gebuchten", "gedanken", "geantwortet"} {
		if n := testing.AllocsPerRun(100, func() { StemBytes(append(buf[:0], w...)) }); n != 0 {
			t.Errorf("StemBytes(%q): %v allocations", w, n)
		}
	}
}
