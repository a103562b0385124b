package sqlite

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestMCPServersM1: a server round-trips whole, switches off and on,
// caches its tools, and every refusal has its code.
func TestMCPServersM1(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "j.db")
	db := openTest(t, path)
	s := store.MCPServer{Name: "files", Transport: "stdio", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/tmp"},
		Env: map[string]string{"TOKEN": "${FILES_TOKEN}"}, Timeout: 5 * time.Second, Enabled: true}
	if err := db.AddMCPServer(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := db.AddMCPServer(ctx, s); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
		t.Errorf("second add: %v", err)
	}
	if err := db.AddMCPServer(ctx, store.MCPServer{Name: "web", Transport: "streamable-http", URL: "https://example.test/mcp", Headers: map[string]string{"Authorization": "Bearer ${WEB}"}, Enabled: true}); err != nil {
		t.Fatal(err)
	}
	if err := db.SetMCPServerEnabled(ctx, "files", false); err != nil {
		t.Fatal(err)
	}
	if err := db.SetMCPServerTools(ctx, "files", []byte(`[{"name":"read_file"}]`)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = openTest(t, path)
	got, err := db.MCPServer(ctx, "files")
	if err != nil {
		t.Fatal(err)
	}
	if got.Enabled || !slices.Equal(got.Args, s.Args) || got.Env["TOKEN"] != "${FILES_TOKEN}" || got.Timeout != 5*time.Second || string(got.Tools) != `[{"name":"read_file"}]` {
		t.Errorf("round trip: %+v", got)
	}
	list, err := db.MCPServers(ctx)
	if err != nil || len(list) != 2 || list[1].Headers["Authorization"] != "Bearer ${WEB}" {
		t.Errorf("list %+v %v", list, err)
	}
	if err := db.SetMCPServerTools(ctx, "files", []byte("not json")); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("bad tools: %v", err)
	}
	if err := db.RemoveMCPServer(ctx, "files"); err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{db.RemoveMCPServer(ctx, "files"), db.SetMCPServerEnabled(ctx, "files", true), func() error { _, err := db.MCPServer(ctx, "files"); return err }()} {
		if jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
			t.Errorf("after remove: %v", err)
		}
	}
}
