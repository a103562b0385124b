package catalog_test

import (
	"os"
	"testing"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/fixtures"
)

// loadSnapshot loads a catalog snapshot from the shared fixtures.
func loadSnapshot(t testing.TB, name string) *catalog.Catalog {
	t.Helper()
	f, err := os.Open(fixtures.Path(t, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	snap, err := catalog.ReadSnapshot(f, name)
	if err != nil {
		t.Fatal(err)
	}
	c := catalog.New()
	if err := c.LoadSnapshot(snap); err != nil {
		t.Fatal(err)
	}
	return c
}
