package app

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app/apptest"
	"github.com/jarvisbot/jarvisbot/internal/fixtures"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestEvalGateOffersWhatTheSetNeedsC5: the development set run against
// the seed snapshot finds every server it needs while offering far fewer
// tools than all; a set that cannot be read is EINVALID.
func TestEvalGateOffersWhatTheSetNeedsC5(t *testing.T) {
	ctx := context.Background()
	env := testEnv(t, nil)
	o := RouteOptions{Snapshot: fixtures.Path(t, "catalog-seed.json")}
	ev, err := env.EvalGate(ctx, o, fixtures.Path(t, "gate-dev.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s := ev.Report.Summary()
	if s.Cases == 0 || s.AllTools != 77 || s.MeanToolsPerTurn >= 77 || s.ServerRecall < 100 {
		t.Errorf("figures %+v", s)
	}
	if _, err := env.EvalGate(ctx, o, filepath.Join(t.TempDir(), "missing.jsonl")); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("missing set: %v", err)
	}
}

// TestEvalReplayLearnsInMemoryC9: the replay pairs over the extended
// snapshot are brought more often after learning than before. The words
// this installation learned already are not part of "before" (the figures
// are the same with and without them), and the replay's own learning is
// not stored.
func TestEvalReplayLearnsInMemoryC9(t *testing.T) {
	ctx := t.Context()
	env := testEnv(t, nil)
	o := RouteOptions{Snapshot: fixtures.Path(t, "catalog-extended.json")}
	sets := []string{fixtures.ReplayPath(t, "pairs.jsonl"), fixtures.ReplayPath(t, "negatives.jsonl")}
	fresh, err := env.EvalReplay(ctx, o, sets...)
	if err != nil {
		t.Fatal(err)
	}
	rep := fresh.Report
	if rep.Pairs != 40 || rep.Negatives != 12 || rep.Recovered == 0 || rep.Recall[1] <= rep.Recall[0] {
		t.Errorf("replay figures %+v", rep.Summary())
	}
	if len(fresh.Warnings) != 0 {
		t.Errorf("every server the pairs want is in the extended catalog, yet: %q", fresh.Warnings)
	}
	// Over a catalog without their servers, the pairs cannot be brought,
	// and the replay says so.
	seed, err := env.EvalReplay(ctx, RouteOptions{Snapshot: fixtures.Path(t, "catalog-seed.json")}, sets...)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(seed.Warnings, func(w string) bool {
		return strings.HasPrefix(w, "5 pairs want the server google-maps, which the catalog does not have (first at ")
	}) {
		t.Errorf("the seed catalog's replay does not say that it lacks google-maps: %q", seed.Warnings)
	}
	cfg, err := env.LoadConfig()
	if err != nil {
		t.Fatal(err)
	}
	db, err := env.OpenStore(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if learned, err := db.LearnedWords(ctx, store.LearnedServer); err != nil || len(learned) != 0 {
		t.Fatalf("the replay stored learned words: %+v (%v)", learned, err)
	}
	// Words the installation learned, which would bring maps to second
	// requests before any replayed learning.
	words := []store.LearnedWord{{Word: "apothek", Label: "apotheke"}, {Word: "ramen", Label: "ramen"}, {Word: "cycl", Label: "cycle"}}
	if err := db.LearnWords(ctx, store.LearnedServer, "google-maps", words, apptest.Noon()); err != nil {
		t.Fatal(err)
	}
	taught, err := env.EvalReplay(ctx, o, sets...)
	if err != nil {
		t.Fatal(err)
	}
	if taught.Report.Summary() != rep.Summary() {
		t.Errorf("the installation's learned words changed the replay: %+v, without them %+v", taught.Report.Summary(), rep.Summary())
	}
	if _, err := env.EvalReplay(ctx, o, filepath.Join(t.TempDir(), "missing.jsonl")); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("missing set: %v", err)
	}
	if _, err := env.EvalReplay(ctx, o, fixtures.ReplayPath(t, "negatives.jsonl")); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("a set without pairs: %v", err)
	}
}
