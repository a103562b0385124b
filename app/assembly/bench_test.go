package assembly_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/jarvisbot/jarvisbot/app/assembly"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// BenchmarkBuildStored is serve's catalog at start, before the owner is
// reachable: the builtins and the 17 servers of the extended snapshot
// (294 tools, testdata/fixtures/catalog-extended.json) as the store keeps
// them, read from real SQLite. "start" is what serve pays before the
// owner can reach it: the servers' tool lists are read only when first
// needed; "tools" adds reading all of them (a view of the catalog), as
// commands read them, and "tools-shelved" as serve's first turn does,
// their input schemas left in the store (Sources.Reread).
func BenchmarkBuildStored(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	db, err := sqlstore.Open(ctx, filepath.Join(dir, "jarvisbot.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	snap, err := assembly.ReadSnapshotFile(filepath.Join("..", "..", "testdata", "fixtures", "catalog-extended.json"))
	if err != nil {
		b.Fatal(err)
	}
	tools := 0
	for _, s := range snap.MCPServers {
		if err := db.AddMCPServers(ctx, []store.MCPServer{{Name: s.Name, Transport: "stdio", Command: s.Name + "-mcp", Enabled: true, Instructions: s.Instructions}}); err != nil {
			b.Fatal(err)
		}
		list, err := json.Marshal(s.Tools)
		if err != nil {
			b.Fatal(err)
		}
		if err := db.SetMCPServerTools(ctx, s.Name, list); err != nil {
			b.Fatal(err)
		}
		tools += len(s.Tools)
	}
	cfg := config.Config{DataDir: dir, Path: "bench.yaml"}
	allTools := func(c *catalog.Catalog) error {
		if n := len(c.View().Capabilities()); n < tools {
			return fmt.Errorf("%d capabilities, want at least the %d stored tools", n, tools)
		}
		return nil
	}
	for _, bc := range []struct {
		name   string
		reread bool
		check  func(c *catalog.Catalog) error
	}{
		{"start", false, func(c *catalog.Catalog) error {
			if n := len(c.Servers()); n < len(snap.MCPServers) {
				return fmt.Errorf("%d servers, want at least the %d stored", n, len(snap.MCPServers))
			}
			return nil
		}},
		{"tools", false, allTools},
		{"tools-shelved", true, allTools},
	} {
		src := assembly.Sources{Config: cfg, Stored: db}
		if bc.reread {
			src.Reread = db
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c, err := assembly.Build(ctx, src)
				if err != nil {
					b.Fatal(err)
				}
				if err := bc.check(c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
