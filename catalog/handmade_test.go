package catalog_test

import (
	"testing"

	"github.com/jarvisbot/jarvisbot/catalog"
)

// adder returns the function the tests use to put a connected server of
// their own making into c: written in the shape real servers send, none of
// them a fixture server.
func adder(t testing.TB, c *catalog.Catalog) func(catalog.Server, ...catalog.SnapshotTool) {
	return func(s catalog.Server, tools ...catalog.SnapshotTool) {
		t.Helper()
		s.Connected = true
		if err := c.SetServer(s, tools); err != nil {
			t.Fatal(err)
		}
	}
}

// named is tools listed by their names alone.
func named(names ...string) []catalog.SnapshotTool {
	tools := make([]catalog.SnapshotTool, len(names))
	for i, n := range names {
		tools[i] = catalog.SnapshotTool{Name: n}
	}
	return tools
}

// described is a tool with a description, as a server lists it.
func described(name, desc string) catalog.SnapshotTool {
	return catalog.SnapshotTool{Name: name, Description: desc}
}
