package app

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/internal/fakes/mcptestbin"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
	"github.com/jarvisbot/jarvisbot/store"
)

// mcpTestServer is the in-repo MCP test server, built once.
func mcpTestServer(t *testing.T) string { return mcptestbin.Path(t) }

// TestAddServerWarnsAndReportsM1: adding a server tells of reaching it
// once, returns the tools the catalog takes and, as values, a warning for
// each tool it leaves out; the server is then listed, shown, switched
// off and on, and removed.
func TestAddServerWarnsAndReportsM1(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	file := filepath.Join(t.TempDir(), "tools.json")
	tools := `[{"name": "list_widgets", "description": "List the widgets. All of them."}, {"name": "a/b"}, {"name": "make_widget"}]`
	if err := os.WriteFile(file, []byte(tools), 0o600); err != nil {
		t.Fatal(err)
	}
	var reached []Reaching
	added, warnings, err := in.AddServer(ctx, NewServer{Name: "odd", Command: []string{mcpTestServer(t), "-name", "odd", "-tools-file", file}},
		func(r Reaching) { reached = append(reached, r) })
	if err != nil {
		t.Fatal(err)
	}
	if len(reached) != 1 || reached[0].Name != "odd" || !strings.Contains(reached[0].Target, "mcptestserver") {
		t.Errorf("reaching events: %+v", reached)
	}
	if added.Name != "odd" || added.Transport != "stdio" || !slices.Equal(added.Tools, []string{"list_widgets", "make_widget"}) || !strings.HasPrefix(added.Info, "odd") {
		t.Errorf("added: %+v", added)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], `"a/b"`) {
		t.Errorf("warnings: %q, want one for a/b", warnings)
	}

	rows, err := in.ListServers(ctx, false, nil)
	if err != nil || len(rows) != 1 || rows[0].Name != "odd" || !rows[0].Enabled || rows[0].Tools != 2 || rows[0].Running != nil {
		t.Fatalf("list: %+v, %v", rows, err)
	}
	d, err := in.ShowServer(ctx, "odd")
	if err != nil || d.Listed != 2 || len(d.Tools) != 2 || d.Tools[0].Description != "List the widgets" {
		t.Errorf("show: %+v, %v", d, err)
	}
	if !strings.Contains(d.Settings.Text(), "odd: on, stdio\ncommand: ") {
		t.Errorf("settings:\n%s", d.Settings.Text())
	}
	if name, err := in.SwitchServer(ctx, "odd", false); err != nil || name != "odd" {
		t.Fatalf("switch off: %q, %v", name, err)
	}
	if rows, _ := in.ListServers(ctx, true, func(Reaching) { t.Error("a server that is off was reached") }); rows[0].Enabled || rows[0].Status != "" {
		t.Errorf("after off: %+v", rows[0])
	}
	if _, err := in.SwitchServer(ctx, "odd", true); err != nil {
		t.Fatal(err)
	}
	rows, err = in.ListServers(ctx, true, nil)
	if err != nil || rows[0].Status != "up" || rows[0].Tools != 2 {
		t.Errorf("checked list: %+v, %v", rows, err)
	}
	r, err := in.RemoveServer(ctx, "odd")
	if err != nil || r.Name != "odd" {
		t.Fatalf("remove: %+v, %v", r, err)
	}
	if _, err := in.ShowServer(ctx, "odd"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("show after remove: %v", err)
	}
}

// TestAddServerRefusalsM1X3: settings that cannot work are refused
// before any server is reached, and nothing is stored.
func TestAddServerRefusalsM1X3(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	srv := mcpTestServer(t)
	for _, tc := range []struct {
		name string
		n    NewServer
		code jarvisbot.Code
		want string
	}{
		{"env of an HTTP server", NewServer{Name: "web", URL: "https://example.test/mcp", Env: []string{"A=b"}}, jarvisbot.EINVALID, "--env is for stdio servers"},
		{"env without a key", NewServer{Name: "x", Command: []string{srv}, Env: []string{"=v"}}, jarvisbot.EINVALID, "write it as KEY=VALUE"},
		{"header without a colon", NewServer{Name: "x", URL: "https://example.test/mcp", Headers: []string{"Authorization Bearer"}}, jarvisbot.EINVALID, "KEY:VALUE"},
		{"a bad name", NewServer{Name: "Bad Name", Command: []string{srv}}, jarvisbot.EINVALID, "server name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := in.AddServer(ctx, tc.n, func(r Reaching) { t.Errorf("%s was reached", r.Name) })
			if jarvisbot.ErrorCode(err) != tc.code || err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %s with %q", err, tc.code, tc.want)
			}
		})
	}
	if rows, err := in.ListServers(ctx, false, nil); err != nil || len(rows) != 0 {
		t.Errorf("refused servers were stored: %+v, %v", rows, err)
	}
}

// TestImportServersAllOrNothingM1X3: an import with one server that does
// not answer adds none and names it as a value; fixed, every server is
// added with its literal secret moved to the keyring.
func TestImportServersAllOrNothingM1X3(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	srv := mcpTestServer(t)
	box := map[string]any{"command": srv, "args": []string{"-name", "box"}, "env": map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}}
	write := func(servers map[string]any) string {
		data, _ := json.Marshal(map[string]any{"mcpServers": servers})
		file := filepath.Join(t.TempDir(), "mcp.json")
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return file
	}
	res, _, err := in.ImportServers(ctx, write(map[string]any{"Test Box": box, "broken": map[string]any{"command": srv, "args": []string{"-exit-at-start", "9"}}}), nil)
	if err == nil || len(res.Added) != 0 || len(res.Refused) != 1 || res.Refused[0].Name != "broken" || !strings.Contains(res.Refused[0].Err.Error(), "status 9") {
		t.Fatalf("import with a broken server: %+v, %v", res, err)
	}
	if rows, _ := in.ListServers(ctx, false, nil); len(rows) != 0 {
		t.Fatalf("a failed import stored %+v", rows)
	}
	var reached []string
	res, _, err = in.ImportServers(ctx, write(map[string]any{"Test Box": box}), func(r Reaching) { reached = append(reached, r.Name) })
	if err != nil || res.Total != 1 || len(res.Added) != 1 || res.Added[0].Name != "test-box" || !slices.Equal(reached, []string{"test-box"}) {
		t.Fatalf("import: %+v, reached %q, %v", res, reached, err)
	}
	if mv := res.Added[0].Moved; len(mv) != 1 || mv[0].Ref != "MCP_TEST_BOX_GITHUB_PERSONAL_ACCESS_TOKEN" {
		t.Errorf("moved: %+v", mv)
	}
	r, err := in.RemoveServer(ctx, "test-box")
	if err != nil || !slices.Equal(r.Deleted, []string{"MCP_TEST_BOX_GITHUB_PERSONAL_ACCESS_TOKEN"}) || len(r.Kept) != 0 {
		t.Errorf("remove: %+v, %v", r, err)
	}
}

// TestServerChangesInsideServeM1C5: inside serve a server added is
// started by the running host, listed as up, its page shows its card's
// source and words, a card saved reaches the running catalog, and a
// server switched off or removed is stopped.
func TestServerChangesInsideServeM1C5(t *testing.T) {
	ctx := context.Background()
	one := testInstallation(t, nil)
	svc, err := one.Env.BuildService(ctx, one.Config, slog.New(slog.NewTextHandler(io.Discard, nil)), func(store.Approval) {}, func(store.Approval) {})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	in := svc.Installation()
	if _, _, err := in.AddServer(ctx, NewServer{Name: "box", Command: []string{mcpTestServer(t), "-name", "box"}}, nil); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, 10*time.Second, "the host to have box up", func() (bool, any) {
		rows, err := in.ListServers(ctx, false, nil)
		return err == nil && len(rows) == 1 && rows[0].Running != nil && rows[0].Running.State == mcphost.StateUp, rows
	})
	d, err := in.ShowServer(ctx, "box")
	if err != nil || d.Card.From != CardDerived || len(d.Card.Vocabulary) == 0 {
		t.Errorf("show: card %+v, %v", d.Card, err)
	}
	if _, err := in.SaveCard(ctx, "box", []string{"parcel"}); err != nil {
		t.Fatal(err)
	}
	if srv, ok := svc.Catalog.View().Server("box"); !ok || !slices.Equal(srv.Card, []string{"parcel"}) {
		t.Errorf("the running catalog's card of box: %+v", srv)
	}
	if d, _ := in.ShowServer(ctx, "box"); d.Card.From != CardOwner || !d.Card.Owned {
		t.Errorf("after saving: %+v", d.Card)
	}
	if _, err := in.SwitchServer(ctx, "box", false); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, 10*time.Second, "the host to stop box", func() (bool, any) {
		st := svc.Host.Status()
		return len(st) == 0, st
	})
	if rows, _ := in.ListServers(ctx, false, nil); rows[0].Running != nil {
		t.Errorf("a server that is off has a running state: %+v", rows[0].Running)
	}
	if _, err := in.SwitchServer(ctx, "box", true); err != nil {
		t.Fatal(err)
	}
	if _, err := in.RemoveServer(ctx, "box"); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, 10*time.Second, "the host to stop box once removed", func() (bool, any) {
		st := svc.Host.Status()
		return len(st) == 0, st
	})
}

// TestCallToolM1: a tool called by hand answers as a value; a tool that
// reports an error says so in the result, not as a failure to call.
func TestCallToolM1(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	if _, _, err := in.AddServer(ctx, NewServer{Name: "box", Command: []string{mcpTestServer(t), "-name", "box"}}, nil); err != nil {
		t.Fatal(err)
	}
	reached := 0
	res, err := in.CallTool(ctx, "box", "add", `{"a": 40, "b": 2}`, func(Reaching) { reached++ })
	if err != nil || res.IsError || strings.TrimSpace(res.Text) != "42" || reached != 1 {
		t.Errorf("add: %+v, %v, reached %d times", res, err, reached)
	}
	if res, err := in.CallTool(ctx, "box", "fail", "{}", nil); err != nil || !res.IsError {
		t.Errorf("fail: %+v, %v", res, err)
	}
	if _, err := in.CallTool(ctx, "nosuch", "add", "{}", nil); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("a tool of no server: %v", err)
	}
}

// TestSaveCardOutsideServeC5: a card saved by a one-off command is kept
// in the store for every catalog to read; a card the config sets is
// refused, to be edited there.
func TestSaveCardOutsideServeC5(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	if _, _, err := in.AddServer(ctx, NewServer{Name: "box", Command: []string{mcpTestServer(t), "-name", "box"}}, nil); err != nil {
		t.Fatal(err)
	}
	if name, err := in.SaveCard(ctx, "box", []string{"parcel"}); err != nil || name != "box" {
		t.Fatalf("save: %q, %v", name, err)
	}
	cards, err := in.DB.MCPCards(ctx)
	if err != nil || !slices.Equal(cards["box"], []string{"parcel"}) {
		t.Errorf("stored cards: %v, %v", cards, err)
	}
	if _, err := in.SaveCard(ctx, "nosuch", nil); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("saving the card of no server: %v", err)
	}
}

// TestCLIToolsP5X3: a program is connected, listed, run with an argv
// (no shell) and removed; a literal secret in its environment is refused.
func TestCLIToolsP5X3(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	got, err := in.AddCLITool(ctx, NewCLITool{Name: "echo", Description: "Print its arguments."})
	if err != nil || got.Name != "echo" || got.Path == "" {
		t.Fatalf("add: %+v, %v", got, err)
	}
	if list, err := in.CLITools(ctx); err != nil || len(list) != 1 || list[0].Name != "echo" {
		t.Errorf("list: %+v, %v", list, err)
	}
	if out, err := in.RunCLITool(ctx, "echo", []string{"a; b", "$HOME"}); err != nil || !strings.Contains(out, "a; b $HOME") {
		t.Errorf("run: %q, %v", out, err)
	}
	if _, err := in.AddCLITool(ctx, NewCLITool{Name: "tok", Path: "echo", Env: []string{"GH_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123"}}); err == nil {
		t.Error("a literal token in a program's environment was accepted")
	}
	if err := in.RemoveCLITool(ctx, "echo"); err != nil {
		t.Fatal(err)
	}
	if err := in.RemoveCLITool(ctx, "echo"); err == nil {
		t.Error("removing it twice succeeded")
	}
}
