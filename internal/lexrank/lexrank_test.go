package lexrank

import (
	"fmt"
	"testing"
)

func docs() []Doc {
	return []Doc{
		{Fields: []Field{ // 0 calendar
			{Text: "google-calendar", Weight: 3},
			{Text: "calendar event meeting appointment Termin Kalender", Weight: 4, Phrases: []string{"free time"}},
			{Text: "free busy available thursday evening schedule", Weight: 2},
			{Text: "Use the calendar tools to read and create events.", Weight: 1},
		}},
		{Fields: []Field{ // 1 github
			{Text: "github", Weight: 3},
			{Text: "repo pull request issue", Weight: 4, Phrases: []string{"pull request"}},
			{Text: "Inspect repositories and pull requests.", Weight: 1},
		}},
		{Fields: []Field{ // 2 music
			{Text: "spotify", Weight: 3},
			{Text: "music song play pause Lied", Weight: 4},
		}},
	}
}

func top(ix *Index, msg string) int {
	hits := ix.Rank(msg, nil)
	if len(hits) == 0 {
		return -1
	}
	return hits[0].Doc
}

func TestRank(t *testing.T) {
	ix := New(docs())
	tests := []struct {
		msg  string
		want int
	}{
		{"Schedule a team meeting next Tuesday", 0},
		{"Is Thursday evening still free for me?", 0},
		{"Was steht im Terminkalender?", 0},
		{"Open a pull request", 1},
		{"Spiel meine Lieblingslieder", 2},
		{"How do terminals work?", -1},
		{"create a new list", -1},
		{"", -1},
		{"Zeig mir die Repos", 1},
	}
	for _, tt := range tests {
		if got := top(ix, tt.msg); got != tt.want {
			t.Errorf("%q: top %d, want %d (hits %v)", tt.msg, got, tt.want, ix.Rank(tt.msg, nil))
		}
	}
}

func benchDocs(n int) []Doc {
	base := docs()
	out := make([]Doc, 0, n)
	for i := 0; i < n; i++ {
		d := base[i%len(base)]
		fs := append([]Field{{Text: fmt.Sprintf("skill%d widget%d gadget%d", i, i%97, i%31), Weight: 3}}, d.Fields...)
		out = append(out, Doc{Fields: fs})
	}
	return out
}

func benchRank(b *testing.B, n int) {
	ix := New(benchDocs(n))
	out := make([]Hit, 0, n)
	msgs := []string{"Is Thursday evening still free for me?", "Raise a pull request with the signup patch", "Tell me a joke", "Spiel meine Lieblingssongs"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		out = ix.Rank(msgs[i%len(msgs)], out[:0])
		i++
	}
}

func BenchmarkSkillRank50(b *testing.B)   { benchRank(b, 50) }
func BenchmarkSkillRank1000(b *testing.B) { benchRank(b, 1000) }

// TestListedWordsS3: a word of a Trigger field counts in Hit.Listed for
// its document only, as written or as the last part of a compound; the
// same everyday word in another document's prose is not listed there, and
// a one-word name that is a time ("Sunday") is neither listed nor strong.
func TestListedWordsS3(t *testing.T) {
	ix := New([]Doc{
		{Fields: []Field{{Text: "mail inbox", Weight: 4, Trigger: true}}},                              // 0
		{Fields: []Field{{Text: "Send a mail when the time is up.", Weight: 1}}},                       // 1
		{Names: []string{"sunday"}, Fields: []Field{{Text: "sunday board", Weight: 4, Trigger: true}}}, // 2
	})
	tests := []struct {
		msg            string
		doc            int
		listed, strong int32
	}{
		{"any new mails?", 0, 1, 0},
		{"any new mails?", 1, 0, 0},
		{"zeig die Urlaubsmails", 0, 1, 0},
		{"what about sunday?", 2, 0, 0},
		{"the sunday board", 2, 1, 1}, // "board" is listed and distinctive
	}
	for _, tt := range tests {
		found := false
		for _, h := range ix.Rank(tt.msg, nil) {
			if h.Doc == tt.doc {
				found = true
				if h.Listed != tt.listed || h.Strong != tt.strong {
					t.Errorf("%q, doc %d: listed %d strong %d, want %d and %d", tt.msg, tt.doc, h.Listed, h.Strong, tt.listed, tt.strong)
				}
			}
		}
		if !found {
			t.Errorf("%q: doc %d not matched", tt.msg, tt.doc)
		}
	}
}
