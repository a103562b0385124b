package catalog

import (
	"os"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/fixtures"
)

// extendedSnapshot reads the shared fixtures' snapshot of 17 real servers
// (294 tools).
func extendedSnapshot(tb testing.TB) *Snapshot {
	tb.Helper()
	f, err := os.Open(fixtures.Path(tb, "catalog-extended.json"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	snap, err := ReadSnapshot(f, "catalog-extended.json")
	if err != nil {
		tb.Fatal(err)
	}
	return snap
}
