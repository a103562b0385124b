package assembly_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app/assembly"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

func openStore(t *testing.T, dir string) *sqlstore.DB {
	t.Helper()
	db, err := sqlstore.Open(context.Background(), filepath.Join(dir, "jarvisbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

const cachedTools = `[{"name":"list_issues","description":"List issues of a repository.","inputSchema":{"type":"object"}}]`

// TestBuildFromEverySourceC1C5P4: the catalog holds the builtins, the
// stored CLI tools and enabled MCP servers with their cached tools (a
// plugin's server under Needs attention not connected), the card of a
// plugin server's manual, the config's routing data and tier overrides.
func TestBuildFromEverySourceC1C5P4(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openStore(t, dir)
	servers := []store.MCPServer{
		{Name: "gh", Transport: "stdio", Command: "gh-mcp", Enabled: true, Plugin: "github"},
		{Name: "boxy", Transport: "stdio", Command: "box-mcp", Enabled: true, Plugin: "box"},
		{Name: "off", Transport: "stdio", Command: "off-mcp", Enabled: false},
		{Name: "notes", Transport: "stdio", Command: "notes-mcp", Enabled: true},
	}
	if err := db.AddMCPServers(ctx, servers); err != nil {
		t.Fatal(err)
	}
	if err := db.SetMCPServerTools(ctx, "gh", []byte(cachedTools)); err != nil {
		t.Fatal(err)
	}
	if err := db.AddCLITool(ctx, store.CLITool{Name: "rg", Path: "/usr/bin/rg", Description: "Search files."}); err != nil {
		t.Fatal(err)
	}
	if err := db.InstallPlugin(ctx, "box", store.PluginNeedsAttention); err != nil {
		t.Fatal(err)
	}
	cfg := config.Config{DataDir: dir, Path: "test.yaml",
		MCP:   map[string]config.MCPServer{"notes": {Title: "Notes", Aliases: []string{"jotter"}, Card: []string{"memo"}}, "absent": {Title: "Absent"}},
		Tiers: map[string]string{"mcp:gh/list_issues": "ask"}}
	c, err := assembly.Build(ctx, assembly.Sources{Config: cfg, Stored: db})
	if err != nil {
		t.Fatal(err)
	}
	v := c.View()
	for _, id := range []string{"builtin:wiki", "cli:rg", "mcp:gh/list_issues"} {
		if _, ok := v.Capability(id); !ok {
			t.Errorf("no %s in the catalog", id)
		}
	}
	if cp, _ := v.Capability("mcp:gh/list_issues"); cp != nil && cp.Tier != catalog.TierAsk {
		t.Errorf("tier of mcp:gh/list_issues = %s, want the override ask", cp.Tier)
	}
	if gh, ok := v.Server("gh"); !ok || !gh.Connected || len(gh.Card) == 0 {
		t.Errorf("gh = %+v, want connected with the github manual's card", gh)
	}
	if boxy, ok := v.Server("boxy"); !ok || boxy.Connected {
		t.Errorf("boxy = %+v, want present and not connected (P4)", boxy)
	}
	if _, ok := v.Server("off"); ok {
		t.Error("a disabled server is in the catalog")
	}
	if n, ok := v.Server("notes"); !ok || n.Title != "Notes" || strings.Join(n.Aliases, ",") != "jotter" || strings.Join(n.Card, ",") != "memo" {
		t.Errorf("notes = %+v, want the config's routing data", n)
	}
}

// TestBuildRefusesBadTierAndSnapshotC2C7: a tier override that is no tier,
// and a snapshot path that is a folder, fail with what to fix.
func TestBuildRefusesBadTierAndSnapshotC2C7(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	_, err := assembly.Build(ctx, assembly.Sources{Config: config.Config{DataDir: dir, Path: "cfg.yaml", Tiers: map[string]string{"builtin:wiki": "yolo"}}})
	if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "config cfg.yaml: tiers: builtin:wiki") {
		t.Errorf("bad tier: %v", err)
	}
	_, err = assembly.Build(ctx, assembly.Sources{Config: config.Config{DataDir: dir}, Snapshot: dir})
	if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "is a directory, not a JSON file") {
		t.Errorf("snapshot folder: %v", err)
	}
}

// dialer reaches the test's servers by name: live ones by URL, the others
// not at all.
type dialer struct {
	mu        sync.Mutex
	urls      map[string]string
	announced []string
}

func (d *dialer) Announce(s store.MCPServer) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.announced = append(d.announced, s.Name)
}

func (d *dialer) Dial(ctx context.Context, s store.MCPServer) (*mcphost.Conn, error) {
	u, ok := d.urls[s.Name]
	if !ok {
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s does not answer", s.Name)
	}
	return mcphost.Dial(ctx, mcphost.Server{Name: s.Name, Transport: mcphost.StreamableHTTP, URL: u}, mcphost.DialOptions{})
}

// TestRefreshTakesLiveToolsC7: export's refresh puts a live server's tools
// and instructions in the catalog and the cache, and leaves a server that
// does not answer out, saying why.
func TestRefreshTakesLiveToolsC7(t *testing.T) {
	ctx := context.Background()
	srv := server.NewMCPServer("live", "1.0.0", server.WithInstructions("Ask me about weather."))
	srv.AddTool(mcp.NewTool("forecast", mcp.WithDescription("Tomorrow's weather.")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("sun"), nil
	})
	hs := httptest.NewServer(server.NewStreamableHTTPServer(srv))
	defer hs.Close()
	dir := t.TempDir()
	db := openStore(t, dir)
	if err := db.AddMCPServers(ctx, []store.MCPServer{
		{Name: "weather", Transport: "streamable-http", URL: hs.URL, Enabled: true},
		{Name: "dead", Transport: "stdio", Command: "dead-mcp", Enabled: true},
	}); err != nil {
		t.Fatal(err)
	}
	c, err := assembly.Build(ctx, assembly.Sources{Config: config.Config{DataDir: dir}, Stored: db})
	if err != nil {
		t.Fatal(err)
	}
	var warn strings.Builder
	d := &dialer{urls: map[string]string{"weather": hs.URL + "/mcp"}}
	if err := assembly.Refresh(ctx, c, db, d, &warn); err != nil {
		t.Fatal(err)
	}
	v := c.View()
	if _, ok := v.Capability("mcp:weather/forecast"); !ok {
		t.Error("the live tool is not in the catalog")
	}
	if w, _ := v.Server("weather"); w == nil || w.Instructions != "Ask me about weather." {
		t.Errorf("weather = %+v, want its instructions", w)
	}
	if _, ok := v.Server("dead"); ok || !strings.Contains(warn.String(), "leaving dead out of the export") {
		t.Errorf("dead server: in catalog %v, warned %q", ok, warn.String())
	}
	if len(d.announced) != 2 {
		t.Errorf("announced %v, want both servers", d.announced)
	}
	list, err := db.MCPServers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if s.Name == "weather" && (!strings.Contains(string(s.Tools), "forecast") || s.Instructions != "Ask me about weather.") {
			t.Errorf("cached tools of weather = %s, instructions %q", s.Tools, s.Instructions)
		}
	}
	// The next command, with no server running, routes by what was cached:
	// the derived card reads the instructions too (C5).
	c, err = assembly.Build(ctx, assembly.Sources{Config: config.Config{DataDir: dir}, Stored: db})
	if err != nil {
		t.Fatal(err)
	}
	if w, _ := c.View().Server("weather"); w == nil || w.Instructions != "Ask me about weather." {
		t.Errorf("weather from the store = %+v, want its cached instructions", w)
	}
}

// failingCache lists the stored servers and fails to cache any tool list.
type failingCache struct{ list []store.MCPServer }

func (f failingCache) MCPServers(context.Context) ([]store.MCPServer, error) { return f.list, nil }
func (failingCache) SetMCPServerTools(context.Context, string, []byte) error {
	return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "disk full")
}

// keepingDialer dials every server at url and keeps the connections.
type keepingDialer struct {
	url   string
	mu    sync.Mutex
	conns []*mcphost.Conn
}

func (d *keepingDialer) Announce(store.MCPServer) {}
func (d *keepingDialer) Dial(ctx context.Context, s store.MCPServer) (*mcphost.Conn, error) {
	cn, err := mcphost.Dial(ctx, mcphost.Server{Name: s.Name, Transport: mcphost.StreamableHTTP, URL: d.url}, mcphost.DialOptions{})
	if err == nil {
		d.mu.Lock()
		d.conns = append(d.conns, cn)
		d.mu.Unlock()
	}
	return cn, err
}

// TestRefreshClosesEveryConnectionX4: when a step fails, Refresh reports
// it and still closes every connection it opened, those answered after
// the failure too: no server session outlives the command.
func TestRefreshClosesEveryConnectionX4(t *testing.T) {
	ctx := context.Background()
	srv := server.NewMCPServer("live", "1.0.0")
	srv.AddTool(mcp.NewTool("forecast"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("sun"), nil
	})
	hs := httptest.NewServer(server.NewStreamableHTTPServer(srv))
	defer hs.Close()
	var list []store.MCPServer
	for _, name := range []string{"one", "two", "three"} {
		list = append(list, store.MCPServer{Name: name, Transport: "streamable-http", URL: hs.URL, Enabled: true})
	}
	c, err := assembly.Build(ctx, assembly.Sources{Config: config.Config{DataDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if err := c.SetServer(catalog.Server{ID: s.Name, Connected: true}, nil); err != nil {
			t.Fatal(err)
		}
	}
	d := &keepingDialer{url: hs.URL + "/mcp"}
	if err := assembly.Refresh(ctx, c, failingCache{list}, d, &strings.Builder{}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Refresh = %v, want the cache's failure", err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.conns) != len(list) {
		t.Fatalf("%d connections made, want %d", len(d.conns), len(list))
	}
	for i, cn := range d.conns {
		select {
		case <-cn.Done():
		default:
			t.Errorf("connection %d is still open after Refresh returned", i)
		}
	}
}
