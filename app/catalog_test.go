package app

import (
	"context"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/fixtures"
)

// TestCatalogEntriesCardAndExportC1: a snapshot's servers are listed as
// connected with their tiers, each server's card comes with the words
// that offer it, an unknown server is ENOTFOUND naming those there are,
// and the export holds the snapshot's servers again.
func TestCatalogEntriesCardAndExportC1(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	c, err := BuildCatalog(in.Config, fixtures.Path(t, "catalog-seed.json"))
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]CatalogEntry{}
	for _, e := range CatalogEntries(c) {
		states[e.ID] = e
	}
	if e := states["mcp:github/delete_repository"]; e.Tier != catalog.TierAsk || e.State != StateConnected {
		t.Errorf("delete_repository: %+v", e)
	}

	card, err := CatalogCardOf(c, "github")
	if err != nil || card.Title != "GitHub" || len(card.Card) == 0 || len(card.Vocabulary) == 0 {
		t.Errorf("github's card: %+v, %v", card, err)
	}
	if _, err := CatalogCardOf(c, "gitlab"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND || !strings.Contains(err.Error(), "servers: github, notebooklm-mcp") {
		t.Errorf("unknown server: %v", err)
	}

	for _, cached := range []bool{true, false} {
		snap, err := in.Env.ExportCatalog(ctx, in.Config, c, cached, func(r Reaching) { t.Errorf("reached %s: no stored server", r.Name) })
		if err != nil || len(snap.MCPServers) != 2 {
			t.Errorf("export (cached %v): %d servers, %v", cached, len(snap.MCPServers), err)
		}
	}
}
