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
	for _, cp := range cc.c.View().Capabilities() {
		state := "connected"
		switch {
		case catalog.OnNeverList(cp.Name):
			state = "never offered"
		case !cp.Connected:
			state = "not connected"
		}
		fmt.Fprintf(cc.a.stdout, "%-50s %-8s %s\n", cp.ID, cp.Tier, state)
	}
}

func (cc catalogCmd) export(ctx context.Context) error {
	if !cc.cached {
		if err := cc.a.refreshStored(ctx, cc.cfg, cc.c); err != nil {
			return err
		}
	}
	snap := cc.c.View().Snapshot("MCP servers of the jarvisbot catalog")
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
	v := cc.c.View()
	srv, ok := v.Server(server)
	if !ok {
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no MCP server %q in the catalog (servers: %s)", server, serverNames(v))
	}
	src := "derived from its tools and the instructions it sent (no manual); edit its card on the dashboard's MCPs tab, or set mcp." + srv.ID + ".card in the config, to replace it"
	if len(srv.Card) > 0 {
		src = "usage card: " + strings.Join(srv.Card, ", ")
	}
	fmt.Fprintf(cc.a.stdout, "%s (%s): %s\n", srv.ID, srv.Title, src)
	for _, e := range v.Gate().Vocabulary(srv.ID) {
		from := ""
		if e.Source != "" {
			from = " from " + e.Source
		}
		fmt.Fprintf(cc.a.stdout, "  %d  %-17s %s%s\n", e.Weight, e.Kind, e.Word, from)
	}
	return nil
}

func serverNames(v *catalog.View) string {
	var ids []string
	for _, s := range v.Servers() {
		ids = append(ids, s.ID)
	}
	if len(ids) == 0 {
		return "none; pass --catalog SNAPSHOT.json"
	}
	return strings.Join(ids, ", ")
}

// refreshStored puts the live tools of every enabled stored server in c
// and the cache (app.Installation.RefreshCatalog).
func (a *cli) refreshStored(ctx context.Context, cfg config.Config, c *catalog.Catalog) error {
	db, err := a.OpenStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	in := &app.Installation{Env: &a.Env, Config: cfg, DB: db}
	return in.RefreshCatalog(ctx, c, a.showReaching)
}
