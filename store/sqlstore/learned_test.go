package sqlstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/store"
)

// TestLearnedWordsC9: a word taught again counts another turn; a server
// keeps a bounded set, the least taught going first; one word or all of a
// server's can be forgotten.
func TestLearnedWordsC9(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	at := time.Date(2026, 12, 6, 19, 0, 0, 0, time.UTC)
	apo := []store.LearnedWord{{Word: "apothek", Label: "apotheke"}, {Word: "nachst", Label: "nächste"}}
	if err := db.LearnWords(ctx, "google-maps", apo, at); err != nil {
		t.Fatal(err)
	}
	if err := db.LearnWords(ctx, "google-maps", apo[:1], at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	all, err := db.LearnedWords(ctx)
	if err != nil || len(all["google-maps"]) != 2 {
		t.Fatalf("learned %+v %v", all, err)
	}
	if w := all["google-maps"][0]; w.Word != "apothek" || w.Turns != 2 || w.Label != "apotheke" || !w.LearnedAt.Equal(at) || !w.LastAt.Equal(at.Add(time.Hour)) {
		t.Errorf("the word taught twice: %+v", w)
	}
	var many []store.LearnedWord
	for i := range store.MaxLearnedPerServer + 5 {
		many = append(many, store.LearnedWord{Word: fmt.Sprintf("w%02d", i), Label: fmt.Sprintf("w%02d", i)})
	}
	if err := db.LearnWords(ctx, "google-maps", many, at.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	all, _ = db.LearnedWords(ctx)
	if n := len(all["google-maps"]); n != store.MaxLearnedPerServer || all["google-maps"][0].Word != "apothek" {
		t.Errorf("after many words: %d kept, first %+v", n, all["google-maps"][0])
	}
	if n, err := db.ForgetLearned(ctx, "google-maps", "apotheke"); err != nil || n != 1 {
		t.Errorf("forgetting one word as written: %d %v", n, err)
	}
	if n, err := db.ForgetLearned(ctx, "google-maps", ""); err != nil || n != store.MaxLearnedPerServer-1 {
		t.Errorf("forgetting all: %d %v", n, err)
	}
	if all, _ = db.LearnedWords(ctx); len(all) != 0 {
		t.Errorf("after forgetting all: %+v", all)
	}
}
