package lexrank

import "testing"

// paraphraseDocs are three documents whose authors listed a few words
// each, indexed with the thesaurus.
func paraphraseDocs(cap float64) []Doc {
	return []Doc{
		{ParaphraseCap: cap, Fields: []Field{ // 0 a diary
			{Text: "diary appointment", Weight: 4, Paraphrase: true},
			{Text: "Friday tomorrow", Weight: 2, Paraphrase: true},
		}},
		{ParaphraseCap: cap, Fields: []Field{ // 1 letters
			{Text: "letters reply", Weight: 4, Paraphrase: true},
		}},
		{ParaphraseCap: cap, Names: []string{"monday"}, Fields: []Field{ // 2 a product named like a weekday
			{Text: "monday board", Weight: 4, Paraphrase: true},
		}},
	}
}

// TestParaphraseS3: a message reaches a document through the words the
// thesaurus relates to the document's own (issue 15): a translation
// ("Freitag"), another day of the week ("Saturday", "Sonntag"), a synonym
// ("answered" for "reply"). A product's name is not paraphrased, and small
// talk and arithmetic reach nothing.
func TestParaphraseS3(t *testing.T) {
	ix := New(paraphraseDocs(0))
	tests := []struct {
		msg  string
		want int
	}{
		{"Was steht Freitag an?", 0},
		{"Hab ich morgen Zeit?", 0},
		{"Anything on Saturday?", 0},
		{"Was ist am Mittwoch?", 0},
		{"Has the bank answered?", 1},
		{"Was steht am Montag an?", 0},
		{"What is 318 divided by 6?", -1},
		{"Wie viel ist sieben plus acht?", -1},
		{"Tell me a joke", -1},
		{"Erzähl mir einen Witz", -1},
	}
	for _, tt := range tests {
		if got := top(ix, tt.msg); got != tt.want {
			t.Errorf("%q: top %d, want %d (hits %v)", tt.msg, got, tt.want, ix.Rank(tt.msg, nil))
		}
	}
	// Without Paraphrase the same documents know none of these words.
	plain := paraphraseDocs(0)
	for d := range plain {
		for f := range plain[d].Fields {
			plain[d].Fields[f].Paraphrase = false
		}
	}
	if hits := New(plain).Rank("Was steht Freitag an?", nil); len(hits) != 0 {
		t.Errorf("a field without Paraphrase matched a translation: %v", hits)
	}
}

// TestParaphraseCapS3: what synonyms and near words add to a document is
// capped, so a paraphrase alone stays below the cap while the document's
// own words still count in full.
func TestParaphraseCapS3(t *testing.T) {
	const cap = 1.0
	ix := New(paraphraseDocs(cap))
	for _, msg := range []string{"Has the bank answered?", "Any answer yet?"} {
		for _, h := range ix.Rank(msg, nil) {
			if h.Score > cap+1e-6 {
				t.Errorf("%q: doc %d scored %.2f on a paraphrase alone, cap %.1f", msg, h.Doc, h.Score, cap)
			}
		}
	}
	own := ix.Rank("Any reply to my letters?", nil)
	if len(own) == 0 || own[0].Doc != 1 || own[0].Score <= cap {
		t.Errorf("the document's own words: %v, want doc 1 above %.1f", own, cap)
	}
}
