package sqlstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/store"
)

// TestLearnedWordsC9: a word taught again counts another turn; a word
// says when and in which chat the last turn that taught it was; a server
// keeps a bounded set, the least taught going first; one word or all of a
// server's can be forgotten.
func TestLearnedWordsC9(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	at := time.Date(2026, 12, 6, 19, 0, 0, 0, time.UTC)
	const srv = store.LearnedServer
	apo := []store.LearnedWord{{Word: "apothek", Label: "apotheke", Chat: "telegram:1"}, {Word: "nachst", Label: "nächste", Chat: "telegram:1"}}
	if err := db.LearnWords(ctx, srv, "google-maps", apo, at); err != nil {
		t.Fatal(err)
	}
	again := []store.LearnedWord{{Word: "apothek", Label: "apotheke", Chat: "discord:2"}}
	if err := db.LearnWords(ctx, srv, "google-maps", again, at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	all, err := db.LearnedWords(ctx, srv)
	if err != nil || len(all["google-maps"]) != 2 {
		t.Fatalf("learned %+v %v", all, err)
	}
	if w := all["google-maps"][0]; w.Word != "apothek" || w.Turns != 2 || w.Label != "apotheke" || w.Kind != srv || w.Name != "google-maps" ||
		!w.LearnedAt.Equal(at) || !w.LastAt.Equal(at.Add(time.Hour)) || w.Chat != "discord:2" {
		t.Errorf("the word taught twice (last in discord:2): %+v", w)
	}
	if w := all["google-maps"][1]; w.Chat != "telegram:1" {
		t.Errorf("the word taught once, in telegram:1: %+v", w)
	}
	var many []store.LearnedWord
	for i := range store.MaxLearned + 5 {
		many = append(many, store.LearnedWord{Word: fmt.Sprintf("w%02d", i), Label: fmt.Sprintf("w%02d", i)})
	}
	if err := db.LearnWords(ctx, srv, "google-maps", many, at.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	all, _ = db.LearnedWords(ctx, srv)
	if n := len(all["google-maps"]); n != store.MaxLearned || all["google-maps"][0].Word != "apothek" {
		t.Errorf("after many words: %d kept, first %+v", n, all["google-maps"][0])
	}
	if n, err := db.ForgetLearned(ctx, srv, "google-maps", "apotheke"); err != nil || n != 1 {
		t.Errorf("forgetting one word as written: %d %v", n, err)
	}
	if n, err := db.ForgetLearned(ctx, srv, "google-maps", ""); err != nil || n != store.MaxLearned-1 {
		t.Errorf("forgetting all: %d %v", n, err)
	}
	if all, _ = db.LearnedWords(ctx, srv); len(all) != 0 {
		t.Errorf("after forgetting all: %+v", all)
	}
}

// TestLearnedWordsOfSkillsAreTheirOwnC9: a skill keeps its learned words
// apart from a server of the same name: each kind lists, bounds and
// forgets only its own.
func TestLearnedWordsOfSkillsAreTheirOwnC9(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	at := time.Date(2026, 12, 6, 19, 0, 0, 0, time.UTC)
	bew := []store.LearnedWord{{Word: "bewerbung", Label: "bewerbung"}, {Word: "anschreib", Label: "anschreiben"}}
	if err := db.LearnWords(ctx, store.LearnedSkill, "humanizer", bew, at); err != nil {
		t.Fatal(err)
	}
	if err := db.LearnWords(ctx, store.LearnedServer, "humanizer", bew[:1], at); err != nil {
		t.Fatal(err)
	}
	sk, err := db.LearnedWords(ctx, store.LearnedSkill)
	if err != nil || len(sk) != 1 || len(sk["humanizer"]) != 2 || sk["humanizer"][0].Kind != store.LearnedSkill {
		t.Fatalf("the skill's words: %+v %v", sk, err)
	}
	if srv, _ := db.LearnedWords(ctx, store.LearnedServer); len(srv["humanizer"]) != 1 {
		t.Errorf("the server's words: %+v", srv)
	}
	if n, err := db.ForgetLearned(ctx, store.LearnedSkill, "humanizer", ""); err != nil || n != 2 {
		t.Errorf("forgetting the skill's words: %d %v", n, err)
	}
	if srv, _ := db.LearnedWords(ctx, store.LearnedServer); len(srv["humanizer"]) != 1 {
		t.Errorf("forgetting the skill's words took the server's: %+v", srv)
	}
}

// TestLearnedWordsUnlearnC9: each ignored offer counts against the words
// named, and only those; a use starts a word's count over, and so does
// teaching it again; the third ignored offer drops a word.
func TestLearnedWordsUnlearnC9(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	at := time.Date(2026, 12, 6, 19, 0, 0, 0, time.UTC)
	const sk = store.LearnedSkill
	ws := []store.LearnedWord{{Word: "kuschelrock", Label: "kuschelrock"}, {Word: "sammlung", Label: "sammlung"}, {Word: "nachst", Label: "nächste"}}
	if err := db.LearnWords(ctx, sk, "spotify", ws, at); err != nil {
		t.Fatal(err)
	}
	ignored := func() map[string]int {
		all, err := db.LearnedWords(ctx, sk)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int{}
		for _, w := range all["spotify"] {
			out[w.Word] = w.Ignored
		}
		return out
	}
	for range 2 {
		if n, err := db.IgnoreLearned(ctx, sk, "spotify", []string{"kuschelrock", "nächste"}); err != nil || n != 0 {
			t.Fatalf("ignoring: %d dropped, %v", n, err)
		}
	}
	if got := ignored(); got["kuschelrock"] != 2 || got["nachst"] != 2 || got["sammlung"] != 0 {
		t.Fatalf("after two ignored offers: %v", got)
	}
	if err := db.UsedLearned(ctx, sk, "spotify", []string{"nachst"}); err != nil {
		t.Fatal(err)
	}
	if n, err := db.IgnoreLearned(ctx, sk, "spotify", []string{"kuschelrock", "nachst"}); err != nil || n != 1 {
		t.Fatalf("the third ignored offer dropped %d words, %v", n, err)
	}
	if got := ignored(); len(got) != 2 || got["nachst"] != 1 || got["sammlung"] != 0 {
		t.Errorf("after a use and a third ignored offer: %v", got)
	}
	if err := db.LearnWords(ctx, sk, "spotify", ws[2:], at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got := ignored(); got["nachst"] != 0 {
		t.Errorf("a word taught again keeps its ignored offers: %v", got)
	}
	if srv, _ := db.LearnedWords(ctx, store.LearnedServer); len(srv) != 0 {
		t.Errorf("a skill's words reached the servers: %+v", srv)
	}
}
