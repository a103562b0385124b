package catalog

import (
	"os"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/fixtures"
)

// BenchmarkGateBuildExtended builds the gate of the 17-server catalog,
// paraphrases included: once per catalog change, never per turn.
func BenchmarkGateBuildExtended(b *testing.B) {
	f, err := os.Open(fixtures.Path(b, "catalog-extended.json"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	snap, err := ReadSnapshot(f, "catalog-extended.json")
	if err != nil {
		b.Fatal(err)
	}
	c := New()
	if err := c.LoadSnapshot(snap); err != nil {
		b.Fatal(err)
	}
	v := c.View()
	b.ReportAllocs()
	for b.Loop() {
		buildGate(v)
	}
}
