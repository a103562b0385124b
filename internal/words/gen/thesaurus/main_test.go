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
