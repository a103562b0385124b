package assembly_test

import (
	"context"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/app/assembly"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestPreferencesFromStoreC5: the tie-break reads the owner's marks and
// the activity board's last calls, a server's calls counting for its
// plugin too.
func TestPreferencesFromStoreC5(t *testing.T) {
	ctx := context.Background()
	db := openStore(t, t.TempDir())
	if err := db.Prefer(ctx, "plugin", "spotify"); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	if err := db.RecordActivity(ctx, store.Activity{At: t0, Agent: "default", Tool: "mcp:ytm/play", Tier: "monitor", Outcome: "ok"}); err != nil {
		t.Fatal(err)
	}
	c := catalog.New()
	if err := c.SetServer(catalog.Server{ID: "ytm", Plugin: "youtube-music", Connected: true}, []catalog.SnapshotTool{{Name: "play"}}); err != nil {
		t.Fatal(err)
	}
	p, err := assembly.Preferences(ctx, db, c.View())
	if err != nil {
		t.Fatal(err)
	}
	if p.Marked["plugin:spotify"].IsZero() || !p.Used["mcp:ytm"].Equal(t0) || !p.Used["plugin:youtube-music"].Equal(t0) {
		t.Errorf("preferences %+v", p)
	}
}
