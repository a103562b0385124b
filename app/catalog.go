package app

import (
	"context"
	"os"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app/assembly"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// BuildCatalog assembles the catalog a command works on (assembly.Build),
// from the store when one exists: nothing is created by reading (a
// PostgreSQL database exists once it is configured).
func BuildCatalog(cfg config.Config, snapshotPath string) (*catalog.Catalog, error) {
	ctx := context.Background()
	src := assembly.Sources{Config: cfg, Snapshot: snapshotPath}
	target := StoreTarget(cfg)
	if _, err := os.Stat(target); err == nil || sqlstore.IsPostgres(target) {
		db, err := sqlstore.Open(ctx, target)
		if err != nil {
			return nil, err
		}
		defer db.Close()
		src.Stored = db
	}
	return assembly.Build(ctx, src)
}

// CapabilityState is whether a capability's tools can be offered now.
type CapabilityState string

// The states `catalog list` shows.
const (
	StateConnected    CapabilityState = "connected"
	StateNotConnected CapabilityState = "not connected"
	// StateNeverOffered: its name is on the never list (C4), whatever
	// its source says.
	StateNeverOffered CapabilityState = "never offered"
)

// CatalogEntry is one capability of the catalog, with its risk tier (C2).
type CatalogEntry struct {
	ID    string
	Tier  catalog.Tier
	State CapabilityState
}

// CatalogEntries are the catalog's capabilities in its order (C1).
func CatalogEntries(c *catalog.Catalog) []CatalogEntry {
	caps := c.View().Capabilities()
	out := make([]CatalogEntry, 0, len(caps))
	for _, cp := range caps {
		state := StateConnected
		switch {
		case catalog.OnNeverList(cp.Name):
			state = StateNeverOffered
		case !cp.Connected:
			state = StateNotConnected
		}
		out = append(out, CatalogEntry{ID: cp.ID, Tier: cp.Tier, State: state})
	}
	return out
}

// ExportCatalog is c's MCP servers and tools as a snapshot (the format
// route --catalog reads): with cached, the tools the stored servers
// listed when last seen; without, each enabled stored server is reached
// first (reaching says which, as it goes) and its live tools go in c and
// the cache.
func (a *Env) ExportCatalog(ctx context.Context, cfg config.Config, c *catalog.Catalog, cached bool, reaching func(Reaching)) (*catalog.Snapshot, error) {
	if !cached {
		db, err := a.OpenStore(ctx, cfg)
		if err != nil {
			return nil, err
		}
		in := &Installation{Env: a, Config: cfg, DB: db}
		err = in.RefreshCatalog(ctx, c, reaching)
		if cerr := db.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
	}
	return c.View().Snapshot(ctx, "MCP servers of the jarvisbot catalog")
}

// CatalogCard is what the gate of a catalog (a snapshot's, say) knows of
// an MCP server (C5): its usage card (empty when the card is derived from
// its tools and instructions) and the words that offer it.
type CatalogCard struct {
	ID, Title  string
	Card       []string
	Vocabulary []catalog.Evidence
}

// CatalogCardOf is the card of the MCP server named server in c; ENOTFOUND,
// naming the servers there are, when c has none by that name.
func CatalogCardOf(c *catalog.Catalog, server string) (CatalogCard, error) {
	v := c.View()
	srv, ok := v.Server(server)
	if !ok {
		var ids []string
		for _, s := range v.Servers() {
			ids = append(ids, s.ID)
		}
		names := strings.Join(ids, ", ")
		if len(ids) == 0 {
			names = "none; pass --catalog SNAPSHOT.json"
		}
		return CatalogCard{}, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no MCP server %q in the catalog (servers: %s)", server, names)
	}
	return CatalogCard{ID: srv.ID, Title: srv.Title, Card: srv.Card, Vocabulary: v.Gate().Vocabulary(srv.ID)}, nil
}
