package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/catalog/builtin/skillbook"
	"github.com/jarvisbot/jarvisbot/catalog/builtin/wiki"
	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlite"
)

// buildCatalog assembles the catalog a command works on: the builtins,
// the MCP servers of a snapshot (as if connected) when one is given, the
// usage cards of store plugins' servers (their manuals' words), the
// config's routing data for servers (title, aliases, usage card) and the
// owner's tier overrides.
func buildCatalog(cfg config.Config, snapshotPath string) (*catalog.Catalog, error) {
	c := catalog.New()
	builtins := append([]catalog.Capability{wiki.New(filepath.Join(cfg.DataDir, "wiki")).Capability(), skillbook.Capability()}, catalog.AppControlTools()...)
	for _, cp := range builtins {
		if err := c.Add(cp); err != nil {
			return nil, err
		}
	}
	if err := storedServers(c, cfg); err != nil {
		return nil, err
	}
	if snapshotPath != "" {
		snap, err := readSnapshotFile(snapshotPath)
		if err != nil {
			return nil, err
		}
		if err := c.LoadSnapshot(snap); err != nil {
			return nil, err
		}
	}
	if err := cardsFromManuals(c, cfg); err != nil {
		return nil, err
	}
	for id, s := range cfg.MCP {
		err := c.UpdateServer(id, func(srv *catalog.Server) {
			if s.Title != "" {
				srv.Title = s.Title
			}
			srv.Aliases = append(srv.Aliases, s.Aliases...)
			if len(s.Card) > 0 {
				srv.Card = s.Card // the owner's card replaces the derived one
			}
		})
		// Routing data for a server that is not connected now is kept in
		// the config for when it is; it is not an error.
		if err != nil && jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
			return nil, err
		}
	}
	ids := make([]string, 0, len(cfg.Tiers))
	for id := range cfg.Tiers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		t, err := catalog.ParseTier(cfg.Tiers[id])
		if err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "config %s: tiers: %s: %w", cfg.Path, id, err)
		}
		if err := c.SetTier(id, t); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "config %s: tiers: %w", cfg.Path, err)
		}
	}
	return c, nil
}

// cardsFromManuals gives every server of a store plugin that brings no card
// of its own the words of the plugin's manual (S2, C5): connecting the
// plugin turns its words on, because the server is in the catalog only
// while it is connected.
func cardsFromManuals(c *catalog.Catalog, cfg config.Config) error {
	need := false
	for _, srv := range c.View().Servers() {
		need = need || (srv.Plugin != "" && len(srv.Card) == 0)
	}
	if !need {
		return nil // reading the store costs start-up time and memory for nothing
	}
	store, err := loadStore(cfg, io.Discard)
	if err != nil {
		return err
	}
	for _, srv := range c.View().Servers() {
		sp, ok := store[srv.Plugin]
		if !ok || len(srv.Card) > 0 {
			continue
		}
		card := sp.card()
		if err := c.UpdateServer(srv.ID, func(s *catalog.Server) { s.Card = card }); err != nil {
			return err
		}
	}
	return nil
}

// storedServers adds the owner's connected CLI tools and enabled MCP servers with the tools they
// listed when last seen, as connected: a command that explains a turn does
// not start every server. The running service replaces them with the live
// sessions. A server of a plugin under Needs attention is added not
// connected, as the service has it (P4): its sign-in cannot reach it.
// Nothing is read when no database exists yet.
//
// Every command builds this catalog, `mcp remove` included, so nothing
// stored may make it fail: a tool the catalog cannot hold is left out (the
// catalog's rule, warned about when the server listed it), a cached list
// that cannot be read counts as no tools until the server is reached again,
// and an entry the catalog refuses outright is skipped.
func storedServers(c *catalog.Catalog, cfg config.Config) error {
	if _, err := os.Stat(dbPath(cfg)); err != nil {
		return nil
	}
	db, err := sqlite.Open(context.Background(), dbPath(cfg))
	if err != nil {
		return err
	}
	defer db.Close()
	list, err := db.MCPServers(context.Background())
	if err != nil {
		return err
	}
	tools, err := db.CLITools(context.Background())
	if err != nil {
		return err
	}
	attention, err := pluginsNeedingAttention(context.Background(), db)
	if err != nil {
		return err
	}
	for _, t := range tools {
		_ = c.Add(cliTool(t).Capability()) // refused: a name `cli add` would not take; it stays removable
	}
	for _, s := range list {
		if !s.Enabled {
			continue
		}
		var tools []catalog.SnapshotTool
		if json.Unmarshal(s.Tools, &tools) != nil {
			tools = nil
		}
		// refused: a name `mcp add` would not take; it stays listed and removable
		_ = c.SetServer(catalog.Server{ID: s.Name, Plugin: s.Plugin, Trusted: s.Trusted, Connected: !attention[s.Plugin]}, tools)
	}
	return nil
}

// refreshStored connects to every enabled stored server at once and puts
// its live tools in the catalog (and the cache); a server that does not
// answer is left out, with the reason on stderr.
func (a *app) refreshStored(ctx context.Context, cfg config.Config, c *catalog.Catalog) error {
	db, err := a.openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	list, err := db.MCPServers(ctx)
	if err != nil {
		return err
	}
	m := mcpCmd{a: a, cfg: cfg, db: db}
	type live struct {
		s    store.MCPServer
		conn *mcphost.Conn
		err  error
	}
	results := make(chan live)
	n := 0
	for _, s := range list {
		if !s.Enabled {
			continue
		}
		n++
		m.progress(s)
		go func() {
			cn, err := m.dial(ctx, s)
			results <- live{s, cn, err}
		}()
	}
	for range n {
		r := <-results
		if r.err != nil {
			fmt.Fprintf(a.stderr, "jarvisbot: leaving %s out of the export: %v\n", r.s.Name, r.err)
			c.RemoveServer(r.s.Name)
			continue
		}
		tools := r.conn.Tools()
		err := c.SetTools(r.s.Name, tools, true)
		if err == nil {
			err = c.UpdateServer(r.s.Name, func(srv *catalog.Server) {
				srv.Instructions = r.conn.Instructions
				if srv.Title == "" {
					srv.Title = r.conn.Info.Title
				}
			})
		}
		if err == nil {
			err = db.SetMCPServerTools(ctx, r.s.Name, toolsJSON(tools))
		}
		r.conn.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func readSnapshotFile(path string) (*catalog.Snapshot, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "open catalog snapshot: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "catalog snapshot %s is a directory, not a JSON file", path)
	}
	return catalog.ReadSnapshot(f, path)
}

// cmdCatalog: jarvisbot catalog list|export|card.
func cmdCatalog(ctx context.Context, a *app, args []string) error {
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
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	c, err := buildCatalog(cfg, *snapshot)
	if err != nil {
		return err
	}
	v := c.View()
	switch pos[0] {
	case "list":
		for _, cp := range v.Capabilities() {
			state := "connected"
			switch {
			case catalog.OnNeverList(cp.Name):
				state = "never offered (C4)"
			case !cp.Connected:
				state = "not connected"
			}
			fmt.Fprintf(a.stdout, "%-50s %-8s %s\n", cp.ID, cp.Tier, state)
		}
		return nil
	case "export":
		if !*cached {
			if err := a.refreshStored(ctx, cfg, c); err != nil {
				return err
			}
			v = c.View()
		}
		snap := v.Snapshot("MCP servers of the jarvisbot catalog")
		if *outPath == "" {
			return catalog.WriteSnapshot(a.stdout, snap)
		}
		f, err := os.OpenFile(*outPath, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
		if err != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "export: %w", err)
		}
		// Close reports a write the system had not finished: the file
		// would be cut short without a word.
		err = catalog.WriteSnapshot(f, snap)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "export: writing %s: %w", *outPath, err)
		}
		return nil
	case "card":
		if len(pos) != 2 {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot catalog card SERVER")
		}
		srv, ok := v.Server(pos[1])
		if !ok {
			return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no MCP server %q in the catalog (servers: %s)", pos[1], serverNames(v))
		}
		src := "derived from its tools (no manual); set mcp." + srv.ID + ".card in the config to replace it"
		if len(srv.Card) > 0 {
			src = "usage card: " + strings.Join(srv.Card, ", ")
		}
		fmt.Fprintf(a.stdout, "%s (%s): %s\n", srv.ID, srv.Title, src)
		for _, e := range v.Gate().Vocabulary(srv.ID) {
			from := ""
			if e.Source != "" {
				from = " from " + e.Source
			}
			fmt.Fprintf(a.stdout, "  %d  %-17s %s%s\n", e.Weight, e.Kind, e.Word, from)
		}
		return nil
	}
	return jarvisbot.Errorf(jarvisbot.EINVALID, "unknown catalog subcommand %q: use list, export or card", pos[0])
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
