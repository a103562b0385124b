package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/config"
)

// catalogCmd is one run of `catalog`: its flags and the catalog built.
type catalogCmd struct {
	a       *cli
	cfg     config.Config
	c       *catalog.Catalog
	outPath string
	cached  bool
}

// cmdCatalog: jarvisbot catalog list|export|card.
func cmdCatalog(ctx context.Context, a *cli, args []string) error {
	fs := newFlagSet(a, "catalog", "catalog list|export|card SERVER [--catalog SNAPSHOT.json] [-o FILE]")
	snapshot := fs.String("catalog", "", "load MCP servers from a catalog snapshot, as if connected")
	outPath := fs.String("o", "", "export: write to FILE instead of stdout")
	cached := fs.Bool("cached", false, "export: write the tools your MCP servers listed when last seen, without connecting")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fs.Usage()
		return jarvisbot.Errorf(jarvisbot.EINVALID, "name a subcommand: list, export or card")
	}
	cfg, err := a.LoadConfig()
	if err != nil {
		return err
	}
	c, err := app.BuildCatalog(cfg, *snapshot)
	if err != nil {
		return err
	}
	cc := catalogCmd{a: a, cfg: cfg, c: c, outPath: *outPath, cached: *cached}
	switch pos[0] {
	case "list":
		cc.list()
		return nil
	case "export":
		return cc.export(ctx)
	case "card":
		if len(pos) != 2 {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot catalog card SERVER")
		}
		return cc.card(pos[1])
	}
	return jarvisbot.Errorf(jarvisbot.EINVALID, "unknown catalog subcommand %q: use list, export or card", pos[0])
}

func (cc catalogCmd) list() {
	for _, e := range app.CatalogEntries(cc.c) {
		fmt.Fprintf(cc.a.stdout, "%-50s %-8s %s\n", e.ID, e.Tier, e.State)
	}
}

func (cc catalogCmd) export(ctx context.Context) error {
	snap, err := cc.a.ExportCatalog(ctx, cc.cfg, cc.c, cc.cached, cc.a.showReaching)
	if err != nil {
		return err
	}
	if cc.outPath == "" {
		return catalog.WriteSnapshot(cc.a.stdout, snap)
	}
	f, err := os.OpenFile(cc.outPath, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "export: %w", err)
	}
	// Close reports a write the system had not finished: the file would
	// be cut short without a word.
	err = catalog.WriteSnapshot(f, snap)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "export: writing %s: %w", cc.outPath, err)
	}
	return nil
}

func (cc catalogCmd) card(server string) error {
	c, err := app.CatalogCardOf(cc.c, server)
	if err != nil {
		return err
	}
	src := "derived from its tools and the instructions it sent (no manual); edit its card on the dashboard's MCPs tab, or set mcp." + c.ID + ".card in the config, to replace it"
	if len(c.Card) > 0 {
		src = "usage card: " + strings.Join(c.Card, ", ")
	}
	fmt.Fprintf(cc.a.stdout, "%s (%s): %s\n", c.ID, c.Title, src)
	for _, e := range c.Vocabulary {
		from := ""
		if e.Source != "" {
			from = " from " + e.Source
		}
		fmt.Fprintf(cc.a.stdout, "  %d  %-17s %s%s\n", e.Weight, e.Kind, e.Word, from)
	}
	return nil
}
