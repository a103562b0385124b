package catalog_test

import (
	"testing"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/catalog/evalset"
	"github.com/jarvisbot/jarvisbot/internal/fixtures"
)

// replay replays sets of testdata/replay on a fresh extended catalog's
// gate (evalset.Replay), and checks that whatever a hard negative newly
// brings it owes to a word learned for that server, explained as learned:
// learning never offers anything else.
func replay(t *testing.T, files ...string) evalset.ReplayReport {
	t.Helper()
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = fixtures.ReplayPath(t, f)
	}
	pairs, negatives, err := evalset.ReadReplayFiles(paths...)
	if err != nil {
		t.Fatal(err)
	}
	c := loadSnapshot(t, "catalog-extended.json")
	rep := evalset.Replay(evalset.GateRouter{Catalog: c}, pairs, negatives)
	for _, b := range rep.Newly {
		learnt := false
		for _, d := range c.View().Gate().Check(b.Negative.Text, nil) {
			if d.Server != b.Target.Name {
				continue
			}
			for _, e := range d.Evidence() {
				learnt = learnt || e.Kind == catalog.EvLearned
			}
		}
		if !learnt {
			t.Errorf("hard negative %q newly offered %s without a word learned for it", b.Negative.Text, b.Target)
		}
	}
	s := rep.Summary()
	t.Logf("%s: %d pairs, %d first requests missed and recovered; second requests: recall %.1f%% -> %.1f%%, exact %.1f%% -> %.1f%%; false offers on %d hard negatives: %d -> %d",
		files[0], s.Pairs, s.Recovered, s.RecallBefore, s.RecallAfter, s.ExactBefore, s.ExactAfter, s.Negatives, s.FalseOffersBefore, s.FalseOffersAfter)
	if rep.Recall[1] < rep.Recall[0] || rep.Exact[1] < rep.Exact[0] {
		t.Errorf("learning lowered recall or exact on the second requests: recall %d -> %d, exact %d -> %d", rep.Recall[0], rep.Recall[1], rep.Exact[0], rep.Exact[1])
	}
	return rep
}

// TestReplayLearning replays an owner's first requests and their later
// ones in the same words (testdata/replay): the development set, whose
// figures hold the targets, and the held-out set, written before
// the scoring was tuned and never tuned on, whose figures are logged to
// show how far the rules carry to words they were not fitted to. Only
// totals are reported for the held-out set.
func TestReplayLearning(t *testing.T) {
	dev := replay(t, "pairs.jsonl", "negatives.jsonl")
	replay(t, "holdout-pairs.jsonl", "holdout-negatives.jsonl")
	// The targets, reached on the development set: recall at
	// least 85%, and hard negatives offered nothing more than before.
	if dev.Recall[1]*100 < 85*dev.Pairs {
		t.Errorf("recall after learning %.1f%%, want at least 85%%", dev.Summary().RecallAfter)
	}
	if dev.FalseOffers[1] > dev.FalseOffers[0] {
		t.Errorf("learning raised false offers on the hard negatives from %d to %d", dev.FalseOffers[0], dev.FalseOffers[1])
	}
}
