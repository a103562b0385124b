package assembly_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/jarvisbot/jarvisbot/app/assembly"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestOwnersCardReplacesDerivedC5: a usage card the owner saved (on the
// dashboard) replaces the derived one in every catalog built from the
// store, so route and the service agree; a card in the config wins.
func TestOwnersCardReplacesDerivedC5(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openStore(t, dir)
	tools, _ := json.Marshal([]map[string]any{{"name": "track_parcel", "description": "Where a parcel is.", "inputSchema": map[string]any{"type": "object"}}})
	for _, name := range []string{"post", "courier"} {
		if err := db.AddMCPServer(ctx, store.MCPServer{Name: name, Transport: "stdio", Command: name, Enabled: true, Tools: string(tools)}); err != nil {
			t.Fatal(err)
		}
		if err := db.SetMCPCard(ctx, name, []string{"Sendung", "delivery"}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := config.Config{DataDir: dir, MCP: map[string]config.MCPServer{"courier": {Card: []string{"van"}}}}
	c, err := assembly.Build(ctx, assembly.Sources{Config: cfg, Stored: db})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{"post": {"Sendung", "delivery"}, "courier": {"van"}} {
		srv, ok := c.View().Server(name)
		if !ok || !reflect.DeepEqual(srv.Card, want) {
			t.Errorf("%s: card %v, want %v", name, srv, want)
		}
	}
}
