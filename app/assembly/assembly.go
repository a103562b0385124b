// Package assembly builds the catalog a command or the service works on
// (C1, C5) from its sources: the builtins (wiki, skillbook, app control),
// the owner's stored CLI tools and MCP servers, a catalog snapshot, the
// usage cards of plugins' manuals, the config's routing data and the
// owner's tier overrides. It sits beside catalog because it draws on the
// tool sources (catalog/mcphost, catalog/clitool, plugins/builtins/*) that
// import catalog themselves; it knows no chat platform and no model.
package assembly

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/catalog/clitool"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/plugins/builtins"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/browser"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/memory"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/skillbook"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/wiki"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/store"
)

// Stored is what assembling reads of the owner's store.
type Stored interface {
	MCPServers(ctx context.Context) ([]store.MCPServer, error)
	CLITools(ctx context.Context) ([]store.CLITool, error)
	collection.Installed
	store.MCPCards
	store.LearnedWords
}

// Sources names what a catalog is built from.
type Sources struct {
	Config config.Config
	// Snapshot is the path of a catalog snapshot whose MCP servers join
	// as if connected; "" for none.
	Snapshot string
	// Stored is the owner's store; nil when there is none yet.
	Stored Stored
	// Reread, when set, is where the stored MCP servers' input schemas
	// are read again when a tool is offered, instead of being held in
	// memory (catalog.Reread): a store that stays open as long as the
	// catalog is used, as serve's does. nil holds them.
	Reread StoredServer
}

// StoredServer reads one stored MCP server.
type StoredServer interface {
	MCPServer(ctx context.Context, name string) (store.MCPServer, error)
}

// Build assembles the catalog: the builtins, the stored CLI tools and MCP
// servers (as last seen), the snapshot's servers, the usage cards of
// plugins' servers (their manuals' words), the config's routing data for
// servers (title, aliases, usage card), the owner's cards edited on the
// dashboard, and the owner's tier overrides.
func Build(ctx context.Context, src Sources) (*catalog.Catalog, error) {
	cfg := src.Config
	c := catalog.New()
	builtins := append([]catalog.Capability{wiki.New(filepath.Join(cfg.DataDir, "wiki")).Capability(), skillbook.Capability(), Browser(cfg).Capability()}, catalog.AppControlTools()...)
	for _, cp := range builtins {
		if err := c.Add(cp); err != nil {
			return nil, err
		}
	}
	// The memory stands as a server of its own, offered when the owner's
	// words refer to the past (A6, catalog/past.go) and on request (C8).
	if err := c.SetBuiltinServer(memory.Server(), []catalog.Capability{memory.Capability()}); err != nil {
		return nil, err
	}
	if src.Stored != nil {
		if err := addStored(ctx, c, src.Stored, src.Reread); err != nil {
			return nil, err
		}
	}
	if src.Snapshot != "" {
		snap, err := ReadSnapshotFile(src.Snapshot)
		if err != nil {
			return nil, err
		}
		if err := c.LoadSnapshot(snap); err != nil {
			return nil, err
		}
	}
	if err := cardsFromManuals(c, cfg.DataDir); err != nil {
		return nil, err
	}
	if src.Stored != nil {
		if err := cardsFromOwner(ctx, c, src.Stored); err != nil {
			return nil, err
		}
		if err := Learned(ctx, c, src.Stored, ""); err != nil {
			return nil, err
		}
	}
	if err := routingFromConfig(c, cfg); err != nil {
		return nil, err
	}
	return c, tiersFromConfig(c, cfg)
}

// Browser is builtin:browser as the config sets it up (P6).
func Browser(cfg config.Config) *browser.Browser {
	return browser.New(browser.Options{Engine: cfg.Browser.Engine, Allow: cfg.Browser.Allow, ChromiumPath: cfg.Browser.ChromiumPath})
}

// routingFromConfig gives the servers the config's title, aliases and
// usage card.
func routingFromConfig(c *catalog.Catalog, cfg config.Config) error {
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
			return err
		}
	}
	return nil
}

// Learned gives the catalog the words the gate learned (C9), for one
// server or, with server "", for all of them.
func Learned(ctx context.Context, c *catalog.Catalog, db store.LearnedWords, server string) error {
	all, err := db.LearnedWords(ctx, store.LearnedServer)
	if err != nil {
		return err
	}
	for id, list := range all {
		if server != "" && id != server {
			continue
		}
		c.SetLearned(id, LearnedOf(list))
	}
	if server != "" && len(all[server]) == 0 {
		c.SetLearned(server, nil)
	}
	return nil
}

// LearnedOf is what the gate and the skill scorer read of stored learned
// words.
func LearnedOf(list []store.LearnedWord) []catalog.LearnedWord {
	words := make([]catalog.LearnedWord, len(list))
	for i, w := range list {
		words[i] = catalog.LearnedWord{Stem: w.Word, Label: w.Label, Turns: w.Turns, Ignored: w.Ignored}
	}
	return words
}

// cardsFromOwner gives servers the usage cards the owner edited on the
// dashboard, which replace the derived card and the manual's; a card in
// the config, applied after, replaces these in turn.
func cardsFromOwner(ctx context.Context, c *catalog.Catalog, db store.MCPCards) error {
	cards, err := db.MCPCards(ctx)
	if err != nil {
		return err
	}
	for id, words := range cards {
		err := c.UpdateServer(id, func(srv *catalog.Server) { srv.Card = words })
		if err != nil && jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
			return err // a server off now gets its card when it is on again
		}
	}
	return nil
}

// tiersFromConfig applies the owner's tier overrides (C2), in a stable
// order so that the first bad one is always the one reported.
func tiersFromConfig(c *catalog.Catalog, cfg config.Config) error {
	ids := make([]string, 0, len(cfg.Tiers))
	for id := range cfg.Tiers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		t, err := catalog.ParseTier(cfg.Tiers[id])
		if err != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "config %s: tiers: %s: %w", cfg.Path, id, err)
		}
		if err := c.SetTier(id, t); err != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "config %s: tiers: %w", cfg.Path, err)
		}
	}
	return nil
}

// cardsFromManuals gives every server of a plugin that brings no card of
// its own the words of the plugin's manual (S2, C5): connecting the plugin
// turns its words on, because the server is in the catalog only while it
// is connected.
func cardsFromManuals(c *catalog.Catalog, dataDir string) error {
	need := false
	servers := c.Servers() // the servers only: their tool lists are not needed here
	for _, srv := range servers {
		need = need || (srv.Plugin != "" && len(srv.Card) == 0)
	}
	if !need {
		return nil // reading the collection costs start-up time and memory for nothing
	}
	all, err := collection.Load(dataDir, io.Discard)
	if err != nil {
		return err
	}
	for _, srv := range servers {
		p, ok := all[srv.Plugin]
		if !ok || len(srv.Card) > 0 {
			continue
		}
		card, title := p.Card(), p.Plugin.DisplayName()
		err := c.UpdateServer(srv.ID, func(s *catalog.Server) {
			s.Card = card
			if s.Native && s.Title == "" {
				s.Title = title // "Google Calendar" names the calendar's tools
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// addStored adds the owner's connected CLI tools and enabled MCP servers
// with the tools they listed when last seen, as connected: a command that
// explains a turn does not start every server. The running service
// replaces them with the live sessions. A server of a plugin under Needs
// attention is added not connected, as the service has it (P4): its
// sign-in cannot reach it.
//
// Every command builds this catalog, `mcp remove` included, so nothing
// stored may make it fail: a tool the catalog cannot hold is left out (the
// catalog's rule, warned about when the server listed it), a cached list
// that cannot be read counts as no tools until the server is reached again,
// and an entry the catalog refuses outright is skipped.
func addStored(ctx context.Context, c *catalog.Catalog, db Stored, again StoredServer) error {
	list, err := db.MCPServers(ctx)
	if err != nil {
		return err
	}
	tools, err := db.CLITools(ctx)
	if err != nil {
		return err
	}
	installed, err := db.InstalledPlugins(ctx)
	if err != nil {
		return err
	}
	attention := map[string]bool{}
	for _, p := range installed {
		attention[p.Name] = p.State == store.PluginNeedsAttention
		if !builtins.Has(p.Name) {
			continue
		}
		// A built-in plugin's tools work once it is signed in; installed
		// only, or under Needs attention, they are listed but withheld.
		on := p.State == store.PluginConnected
		if err := c.SetPluginTools(catalog.Server{ID: p.Name, Plugin: p.Name, Connected: on}, builtins.Capabilities(p.Name, on)); err != nil {
			return err
		}
	}
	for _, t := range tools {
		_ = c.Add(clitool.FromStored(t).Capability()) // refused: a name `cli add` would not take; it stays removable
	}
	for _, s := range list {
		if !s.Enabled {
			continue
		}
		raw, name := s.Tools, s.Name
		read := func() string { return raw }
		var reread catalog.Reread
		if again != nil {
			reread = func(ctx context.Context) ([]catalog.SnapshotTool, error) {
				s, err := again.MCPServer(ctx, name)
				if err != nil {
					return nil, err
				}
				tools, err := catalog.ReadStoredList(s.Tools)
				if err != nil {
					return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "its stored tool list is not a list of tools: %w", err)
				}
				return tools, nil
			}
		}
		// Its list is read when its tools are first needed, not at every
		// command's start. refused: a name `mcp add` would not take; it
		// stays listed and removable.
		_ = c.SetStoredServer(catalog.Server{ID: s.Name, Plugin: s.Plugin, Instructions: s.Instructions, Trusted: s.Trusted, Connected: !attention[s.Plugin]}, read, reread)
	}
	return nil
}

// ReadSnapshotFile reads a catalog snapshot file (C7), saying what to give
// instead of a folder.
func ReadSnapshotFile(path string) (*catalog.Snapshot, error) {
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

// SyncBuiltins brings c's built-in plugins in step with what the store
// says of them now: installed since (their tools join, with their
// manuals' words), signed in or renewed since (connected), under Needs
// attention since (withheld), or removed (gone). The service calls it from
// time to time, so an install or a renewal made with the command line
// takes effect without a restart. It returns the plugins that came back
// connected.
func SyncBuiltins(ctx context.Context, c *catalog.Catalog, db collection.Installed, dataDir string) ([]string, error) {
	installed, err := db.InstalledPlugins(ctx)
	if err != nil {
		return nil, err
	}
	v := c.View()
	want := map[string]bool{}
	var back []string
	added := false
	for _, p := range installed {
		if !builtins.Has(p.Name) {
			continue
		}
		on := p.State == store.PluginConnected
		want[p.Name] = true
		srv, ok := v.Server(p.Name)
		switch {
		case !ok:
			if err := c.SetPluginTools(catalog.Server{ID: p.Name, Plugin: p.Name, Connected: on}, builtins.Capabilities(p.Name, on)); err != nil {
				return nil, err
			}
			added = true
		case srv.Connected != on:
			if err := c.SetConnected(p.Name, on); err != nil {
				return nil, err
			}
		default:
			continue
		}
		if on {
			back = append(back, p.Name)
		}
	}
	for _, srv := range v.Servers() {
		if srv.Native && !want[srv.ID] {
			c.RemoveServer(srv.ID)
		}
	}
	if added {
		return back, cardsFromManuals(c, dataDir)
	}
	return back, nil
}

// ConnectBuiltins puts every built-in plugin's tools in c as installed and
// signed in, with their manuals' words, for `route --connect-all`: an
// evaluation sees the whole store, native tools included.
func ConnectBuiltins(c *catalog.Catalog, dataDir string) error {
	for _, name := range builtins.Names() {
		if err := c.SetPluginTools(catalog.Server{ID: name, Plugin: name, Connected: true}, builtins.Capabilities(name, true)); err != nil {
			return err
		}
	}
	return cardsFromManuals(c, dataDir)
}
