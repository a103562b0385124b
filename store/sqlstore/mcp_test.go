package sqlstore

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestMCPServersM1: a server round-trips whole, switches off and on,
// caches its tools, and every refusal has its code.
func TestMCPServersM1(t *testing.T) {
	ctx := context.Background()
	path := testTarget(t)
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

// TestAddMCPServersAllOrNoneX3: a batch with a taken name adds nothing;
// the names of a server's keyring entries round-trip.
func TestAddMCPServersAllOrNoneX3(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	if err := db.AddMCPServer(ctx, store.MCPServer{Name: "taken", Transport: "stdio", Command: "x"}); err != nil {
		t.Fatal(err)
	}
	for _, batch := range [][]string{{"a", "b", "taken"}, {"a", "b", "a"}} {
		var list []store.MCPServer
		for _, n := range batch {
			list = append(list, store.MCPServer{Name: n, Transport: "stdio", Command: "x", Secrets: []string{"MCP_" + n}})
		}
		if err := db.AddMCPServers(ctx, list); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
			t.Errorf("%v: %v, want a conflict", batch, err)
		}
		if all, _ := db.MCPServers(ctx); len(all) != 1 {
			t.Errorf("%v: a failed batch left %d servers", batch, len(all))
		}
	}
	if err := db.AddMCPServers(ctx, []store.MCPServer{{Name: "a", Transport: "stdio", Command: "x", Secrets: []string{"MCP_A_TOKEN"}}, {Name: "b", Transport: "stdio", Command: "x"}}); err != nil {
		t.Fatal(err)
	}
	if a, err := db.MCPServer(ctx, "a"); err != nil || !slices.Equal(a.Secrets, []string{"MCP_A_TOKEN"}) || a.Problem != "" {
		t.Errorf("a = %+v, %v", a, err)
	}
}

// TestDamagedMCPRowsReadST1: a row whose stored JSON does not decode (what
// today's constraints refuse, left by a hand edit or an older file) is read
// with a Problem and switched off, and never fails the listing.
func TestDamagedMCPRowsReadST1(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	if err := db.AddMCPServer(ctx, store.MCPServer{Name: "good", Transport: "stdio", Command: "x", Enabled: true}); err != nil {
		t.Fatal(err)
	}
	// Let the damage in, as an older schema or a hand edit would have.
	unchecked := `PRAGMA ignore_check_constraints = ON`
	if onPostgres() {
		unchecked = `DO $$ DECLARE c record; BEGIN
			FOR c IN SELECT conname FROM pg_constraint WHERE conrelid = 'mcp_servers'::regclass AND contype = 'c' LOOP
				EXECUTE 'ALTER TABLE mcp_servers DROP CONSTRAINT ' || quote_ident(c.conname);
			END LOOP; END $$`
	}
	if _, err := db.db.ExecContext(ctx, unchecked); err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{"args": `{"x": 1}`, "env": `["API_TOKEN=hunter2"]`, "headers": `not json`, "tools": `not json`, "secrets": `{}`, "created_at": `yesterday`}
	for col, v := range rows {
		_, err := db.db.ExecContext(ctx, `INSERT INTO mcp_servers (name, transport, command, enabled, created_at, updated_at) VALUES (?, 'stdio', 'x', 1, ?, ?)`,
			"bad-"+col, "2026-01-01T00:00:00.000000000Z", "2026-01-01T00:00:00.000000000Z")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.db.ExecContext(ctx, `UPDATE mcp_servers SET `+col+` = ? WHERE name = ?`, v, "bad-"+col); err != nil {
			t.Fatal(err)
		}
	}
	list, err := db.MCPServers(ctx)
	if err != nil || len(list) != len(rows)+1 {
		t.Fatalf("list: %d servers, %v", len(list), err)
	}
	for _, s := range list {
		damaged := s.Name != "good" && s.Name != "bad-created_at"
		if (s.Problem != "") != damaged || (damaged && s.Enabled) || strings.Contains(s.Problem, "hunter2") {
			t.Errorf("%s: problem %q, enabled %v", s.Name, s.Problem, s.Enabled)
		}
	}
	for name := range rows {
		if err := db.RemoveMCPServer(ctx, "bad-"+name); err != nil {
			t.Errorf("remove bad-%s: %v", name, err)
		}
	}
}
