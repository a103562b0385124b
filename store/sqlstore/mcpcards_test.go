package sqlstore

import (
	"context"
	"reflect"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestMCPCardsKeptAndGoWithServerC5: the owner's card is kept, replaced,
// taken back, refused for a server that is not stored, and removed with
// its server.
func TestMCPCardsKeptAndGoWithServerC5(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	if err := db.AddMCPServer(ctx, store.MCPServer{Name: "box", Transport: "stdio", Command: "box", Enabled: true}); err != nil {
		t.Fatal(err)
	}
	if err := db.SetMCPCard(ctx, "nobox", []string{"x"}); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("a card for no server: %v", err)
	}
	for _, words := range [][]string{{"parcel", "Paket"}, {"shipment"}} {
		if err := db.SetMCPCard(ctx, "box", words); err != nil {
			t.Fatal(err)
		}
		if got, err := db.MCPCards(ctx); err != nil || !reflect.DeepEqual(got, map[string][]string{"box": words}) {
			t.Errorf("cards %v, %v; want box: %v", got, err, words)
		}
	}
	if err := db.SetMCPCard(ctx, "box", nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.MCPCards(ctx); len(got) != 0 {
		t.Errorf("taken back, cards are %v", got)
	}
	if err := db.SetMCPCard(ctx, "box", []string{"parcel"}); err != nil {
		t.Fatal(err)
	}
	if err := db.RemoveMCPServer(ctx, "box"); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.MCPCards(ctx); len(got) != 0 {
		t.Errorf("the server is gone, its card is not: %v", got)
	}
}
