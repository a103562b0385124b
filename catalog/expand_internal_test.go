package catalog

import "testing"

// BenchmarkGateBuildExtended builds the gate of the 17-server catalog,
// paraphrases included: once per catalog change, never per turn.
func BenchmarkGateBuildExtended(b *testing.B) {
	snap := extendedSnapshot(b)
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
