package app

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/fixtures"
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
