package assembly_test

import (
	"context"
	"slices"
	"testing"

	"github.com/jarvisbot/jarvisbot/app/assembly"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestSyncBuiltinsFollowsTheStoreP4P6: what the command line does to a
// built-in plugin while the service runs reaches the service's catalog:
// an install adds its tools with its manual's words, a sign-in connects
// them, Needs attention withholds them, a renewal brings them back (and
// says so), a removal takes them away.
func TestSyncBuiltinsFollowsTheStoreP4P6(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openStore(t, dir)
	c := catalog.New()
	sync := func() []string {
		t.Helper()
		back, err := assembly.SyncBuiltins(ctx, c, db, dir)
		if err != nil {
			t.Fatal(err)
		}
		return back
	}
	connected := func() (bool, bool) {
		srv, ok := c.View().Server("gmail")
		return ok, ok && srv.Connected
	}
	if err := db.InstallPlugin(ctx, "gmail", store.PluginInstalled); err != nil {
		t.Fatal(err)
	}
	sync()
	if ok, on := connected(); !ok || on {
		t.Fatalf("installed, not signed in: in catalog %v, connected %v", ok, on)
	}
	if srv, _ := c.View().Server("gmail"); !slices.Contains(srv.Card, "inbox") {
		t.Errorf("gmail's tools joined without its manual's words: %v", srv.Card)
	}
	if err := db.SetPluginState(ctx, "gmail", store.PluginConnected); err != nil {
		t.Fatal(err)
	}
	if back := sync(); !slices.Equal(back, []string{"gmail"}) {
		t.Errorf("signed in: back = %v", back)
	}
	if _, on := connected(); !on {
		t.Error("signed in, but its tools are not connected")
	}
	if back := sync(); len(back) != 0 {
		t.Errorf("nothing changed, yet %v came back", back)
	}
	db.SetPluginState(ctx, "gmail", store.PluginNeedsAttention)
	sync()
	if _, on := connected(); on {
		t.Error("under Needs attention, its tools are still connected")
	}
	if err := db.RemovePlugin(ctx, "gmail"); err != nil {
		t.Fatal(err)
	}
	sync()
	if ok, _ := connected(); ok {
		t.Error("removed, but its tools are still in the catalog")
	}
}
