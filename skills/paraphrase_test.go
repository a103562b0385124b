package skills

import (
	"testing"
)

// shippedRanker ranks what ships: the general skills and every store
// plugin's manual.
func shippedRanker(t *testing.T) *Ranker {
	t.Helper()
	list, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	return NewRanker(append(list, shippedManuals(t)...))
}

// firstEntering is the first skill that takes over or joins, "" for none.
func firstEntering(ms []Match) string {
	for _, m := range ms {
		if m.Entry == EntryTakeOver || m.Entry == EntryJoin {
			return m.Skill.Name
		}
	}
	return ""
}

// TestRankParaphraseS3: over everything that ships, requests that name no
// word of a manual reach it through the thesaurus (issue 15): another
// weekday or its German name, an inflected verb. A paraphrase that is only
// a synonym ("print" for "publish") supports a skill's own words but never
// enters alone; small talk and arithmetic reach nothing.
func TestRankParaphraseS3(t *testing.T) {
	r := shippedRanker(t)
	tests := []struct {
		msg, want string
	}{
		{"What's happening on Saturday?", "google-calendar"},
		{"Do I have plans on Sunday evening?", "google-calendar"},
		{"Habe ich am Montag schon etwas vor?", "google-calendar"},
		{"Was habe ich Donnerstag Nachmittag vor?", "google-calendar"},
		{"Wie sieht mein Samstag aus?", "google-calendar"},
		{"Has the landlord replied?", "gmail"},
		{"Print the quarterly report", ""},
		{"What is 318 divided by 6?", ""},
		{"Wie viel ist sieben mal acht?", ""},
		{"Tell me something funny", ""},
		{"Erzähl mir einen Witz", ""},
		{"Translate good night into French", ""},
	}
	for _, tt := range tests {
		ms := r.Rank(tt.msg, nil)
		if got := firstEntering(ms); got != tt.want {
			t.Errorf("%q: first entering skill %q, want %q (%v)", tt.msg, got, tt.want, summary(ms))
		}
		for _, m := range ms {
			if tt.want == "" && m.Entry == EntryTakeOver {
				t.Errorf("%q: %s takes over small talk", tt.msg, m.Skill.Name)
			}
		}
	}
}

func summary(ms []Match) []string {
	var out []string
	for i, m := range ms {
		if i == 3 {
			break
		}
		out = append(out, m.Skill.Name+":"+string(m.Entry))
	}
	return out
}
