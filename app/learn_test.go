package app

import (
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/store"
)

// TestLearnedTextSaysWhichTurnTaughtC9: a learned word is listed with how
// many turns taught it, when and in which chat the last one was (in the
// owner's zone), and how often its offers went unused; words of one note
// share it.
func TestLearnedTextSaysWhichTurnTaughtC9(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	at := time.Date(2026, 12, 6, 18, 0, 0, 0, time.UTC)
	tests := []struct {
		w    store.LearnedWord
		want string
	}{
		{store.LearnedWord{Label: "apotheke", Turns: 1, LastAt: at, Chat: "telegram:42"}, "1 turn, Sun 6 Dec 19:00 in telegram:42"},
		{store.LearnedWord{Label: "ramen", Turns: 3, LastAt: at, Chat: "console", Ignored: 1}, "3 turns, the last Sun 6 Dec 19:00 in console; offered and ignored 1 time"},
		{store.LearnedWord{Label: "rad", Turns: 2, LastAt: at}, "2 turns, the last Sun 6 Dec 19:00"}, // learned before chats were kept
		{store.LearnedWord{Label: "kita", Turns: 1, Ignored: 2}, "1 turn; offered and ignored 2 times"},
	}
	for _, tt := range tests {
		if got := LearnedNote(tt.w, berlin); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.w.Label, got, tt.want)
		}
	}
	same := store.LearnedWord{Turns: 1, LastAt: at, Chat: "telegram:42"}
	a, b, c := same, same, tests[1].w
	a.Label, b.Label = "hustensaft", "sonntags"
	want := "learned from your turns: hustensaft, sonntags (1 turn, Sun 6 Dec 19:00 in telegram:42); ramen (3 turns, the last Sun 6 Dec 19:00 in console; offered and ignored 1 time)"
	if got := LearnedText([]store.LearnedWord{a, c, b}, berlin); got != want {
		t.Errorf("LearnedText:\n%s\nwant\n%s", got, want)
	}
	if got := LearnedText(nil, berlin); got != "" {
		t.Errorf("no words: %q", got)
	}
}
