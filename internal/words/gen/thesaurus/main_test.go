package main

import (
	"slices"
	"testing"
)

// TestDingWords: a Ding line side gives its headwords without
// annotations, drops phrases and the alternatives a region or trade marks.
func TestDingWords(t *testing.T) {
	tests := []struct {
		side string
		want []string
	}{
		{"Freitag {m} /Fr/ | Endlich Freitag!", []string{"Freitag"}},
		{"Samstag {m}; Sonnabend {m} [Norddt.] | Samstage {pl}", []string{"Samstag"}},
		{"to reply; to answer | replying", []string{"reply", "answer"}},
		{"Laufwerk {n} [comp.]", []string{"Laufwerk"}},
		{"Blendarkaturpilaster {m} [archit.]", nil},
		{"am späten Vormittag", nil},
	}
	for _, tt := range tests {
		if got := dingWords(tt.side); !slices.Equal(got, tt.want) {
			t.Errorf("dingWords(%q) = %q, want %q", tt.side, got, tt.want)
		}
	}
}

// TestAbbreviation: "Mon" of "Monday" is no word of its own; "auto" of
// "automobile" is.
func TestAbbreviation(t *testing.T) {
	for _, tt := range []struct {
		lemma  string
		synset []string
		want   bool
	}{
		{"Mon", []string{"Monday", "Mon"}, true},
		{"wed", []string{"Wednesday", "Wed"}, true},
		{"auto", []string{"car", "auto", "automobile"}, false},
		{"car", []string{"car", "auto"}, false},
	} {
		if got := abbreviation(tt.lemma, tt.synset); got != tt.want {
			t.Errorf("abbreviation(%q, %q) = %v, want %v", tt.lemma, tt.synset, got, tt.want)
		}
	}
}

// TestParseSynsetDerivation: a word-to-word pointer names the lemma it
// starts from, among all of the synset's lemmas, phrases included; a
// whole-synset pointer none (issue 15: derived words).
func TestParseSynsetDerivation(t *testing.T) {
	line := "00001740 31 v 03 call_back 0 remember 0 recall 0 002 + 05760202 n 0201 = 05084201 n 0000 | gloss"
	s, key, err := parseSynset('v', line)
	if err != nil {
		t.Fatal(err)
	}
	if key != "v00001740" || !slices.Equal(s.lemma, []string{"remember", "recall"}) || !slices.Equal(s.all, []string{"call_back", "remember", "recall"}) {
		t.Fatalf("parsed %q: key %q, lemmas %q, all %q", line, key, s.lemma, s.all)
	}
	want := []ptr{{sym: "+", key: "n05760202", src: 2}, {sym: "=", key: "n05084201", src: 0}}
	if !slices.Equal(s.ptrs, want) {
		t.Errorf("pointers %+v, want %+v", s.ptrs, want)
	}
	if _, _, err := parseSynset('v', "00001740 31 v 01 remember 0 001 + 05760202 n zz01 | gloss"); err == nil {
		t.Error("a malformed source/target field was accepted")
	}
}
