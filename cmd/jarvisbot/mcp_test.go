package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/fakes/mcptestbin"
)

// mcpTestServer builds the in-repo MCP test server once per test run.
func mcpTestServer(t *testing.T) string { return mcptestbin.Path(t) }

// httpTestServer starts the test server in HTTP mode and returns its URL.
func httpTestServer(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(mcpTestServer(t), append([]string{"-http", "127.0.0.1:0"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(strings.TrimPrefix(line, "MCPTEST_URL="))
}

func offered(t *testing.T, e *testEnv, msg string) map[string]bool {
	t.Helper()
	code, out, errOut := e.jarvis(t, "", "route", "--json", msg)
	if code != 0 {
		t.Fatalf("route: %s", errOut)
	}
	got := map[string]bool{}
	for _, m := range decodeRoutes(t, out)[0].MCP {
		if m.Offered {
			got[m.Server] = true
		}
	}
	return got
}

// TestMCPAddListOffM1: a stdio and an HTTP server are added after they
// answered, listed, shown with tiers, switched off and on, and routed to.
func TestMCPAddListOffM1(t *testing.T) {
	e := newTestEnv(t)
	srv := mcpTestServer(t)
	code, out, errOut := e.jarvis(t, "", "mcp", "add", "testbox", "--timeout", "5s", "--", srv, "-name", "testbox")
	if code != 0 || !strings.Contains(out, "Added testbox") || !strings.Contains(out, "stdio") {
		t.Fatalf("add stdio: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "Connecting to testbox") {
		t.Errorf("no progress line: %q", errOut)
	}
	url := httpTestServer(t, "-sse")
	if code, out, errOut := e.jarvis(t, "", "mcp", "add", "remote", url); code != 0 || !strings.Contains(out, "sse") {
		t.Fatalf("add SSE through fallback: exit %d\n%s\n%s", code, out, errOut)
	}
	_, out, _ = e.jarvis(t, "", "mcp", "list", "--json")
	var rows []app.ServerRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 2 || rows[1].Name != "testbox" || rows[1].Tools < 8 || rows[0].Transport != "sse" {
		t.Fatalf("list: %v %s", err, out)
	}
	_, out, _ = e.jarvis(t, "", "mcp", "show", "testbox")
	if !strings.Contains(out, "mcp:testbox/delete_everything") || !strings.Contains(out, "ask") || !strings.Contains(out, "timeout: 5s") {
		t.Errorf("show:\n%s", out)
	}
	if !offered(t, e, "ask testbox to echo hello")["testbox"] {
		t.Error("named server not offered")
	}
	e.mustJarvis(t, "", "mcp", "off", "testbox")
	if offered(t, e, "ask testbox to echo hello")["testbox"] {
		t.Error("a server that is off was offered")
	}
	_, out, _ = e.jarvis(t, "", "mcp", "list")
	if !strings.Contains(out, "testbox") || !strings.Contains(out, "off") {
		t.Errorf("off server not listed as off:\n%s", out)
	}
	e.jarvis(t, "", "mcp", "on", "testbox")
	if !offered(t, e, "ask testbox to echo hello")["testbox"] {
		t.Error("switched back on, not offered")
	}
	if code, out, errOut := e.jarvis(t, "", "mcp", "call", "testbox", "add", `{"a": 40, "b": 2}`); code != 0 || strings.TrimSpace(out) != "42" {
		t.Errorf("mcp call: exit %d %q %s", code, out, errOut)
	}
	if code, _, errOut := e.jarvis(t, "", "mcp", "call", "testbox", "fail"); code != 1 || !strings.Contains(errOut, "reported an error") {
		t.Errorf("mcp call of a failing tool: exit %d %s", code, errOut)
	}
	code, out, _ = e.jarvis(t, "", "catalog", "export")
	if code != 0 || !strings.Contains(out, `"name": "testbox"`) || !strings.Contains(out, "delete_everything") {
		t.Errorf("live export: %s", out)
	}
	if code, _, _ := e.jarvis(t, "", "mcp", "remove", "testbox"); code != 0 {
		t.Error("remove")
	}
	if code, _, errOut := e.jarvis(t, "", "mcp", "show", "testbox"); code == 0 || !strings.Contains(errOut, "no MCP server named testbox") {
		t.Errorf("show after remove: %d %s", code, errOut)
	}
}

// TestMCPAddRefusals: a server that does not answer is not added, and a
// literal secret never reaches the database.
func TestMCPAddRefusals(t *testing.T) {
	e := newTestEnv(t)
	e.vars["JARVIS_MCP_INIT_TIMEOUT"] = "2s"
	srv := mcpTestServer(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "add", "dies", "--", srv, "-exit-at-start", "4"}, "exited with status 4"},
		{[]string{"mcp", "add", "ghost", "--", "no-such-command-xyz"}, "not found"},
		{[]string{"mcp", "add", "page", httpTestServer(t, "-html")}, "HTML page"},
		// A literal secret of a server that does not answer is not kept.
		{[]string{"mcp", "add", "leaky", "--env", "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123", "--", srv, "-exit-at-start", "5"}, "exited with status 5"},
		{[]string{"mcp", "add", "Bad Name", "--", srv}, "server name"},
		{[]string{"mcp", "add", "both"}, "usage"},
	}
	for _, c := range cases {
		code, _, errOut := e.jarvis(t, "", c.args...)
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d %q, want %q", c.args[2:], code, errOut, c.want)
		}
	}
	_, out, _ := e.jarvis(t, "", "mcp", "list", "--json")
	if strings.TrimSpace(out) != "[]" {
		t.Errorf("refused servers were stored: %s", out)
	}
	if kr := keyringContents(t, e); len(kr) != 0 {
		t.Errorf("refused servers left secrets: %v", kr)
	}
}

// TestMCPImport: an mcp.json from another app imports; its literal
// secrets move to the keyring; a server that does not answer is named and
// nothing is imported until it is fixed or left out.
func TestMCPImport(t *testing.T) {
	e := newTestEnv(t)
	e.vars["JARVIS_MCP_INIT_TIMEOUT"] = "3s"
	srv := mcpTestServer(t)
	file := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	box := map[string]any{"command": srv, "args": []string{"-name", "box"}, "env": map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "MODE": "demo"}}
	doc := map[string]any{"mcpServers": map[string]any{
		"Test Box": box,
		"broken":   map[string]any{"command": srv, "args": []string{"-exit-at-start", "9"}},
	}}
	data, _ := json.Marshal(doc)
	os.WriteFile(file, data, 0o600)
	code, out, errOut := e.jarvis(t, "", "mcp", "import", file)
	if code != 1 || !strings.Contains(out, "✗ broken") || !strings.Contains(out, "status 9") || !strings.Contains(errOut, "nothing was imported") {
		t.Fatalf("import with a broken server: exit %d\n%s\n%s", code, out, errOut)
	}
	data, _ = json.Marshal(map[string]any{"mcpServers": map[string]any{"Test Box": box}})
	os.WriteFile(file, data, 0o600)
	code, out, errOut = e.jarvis(t, "", "mcp", "import", file)
	if code != 0 || !strings.Contains(out, "✓ Added test-box") || !strings.Contains(out, "Imported 1 of 1") {
		t.Fatalf("import: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "into the keyring as MCP_TEST_BOX_GITHUB_PERSONAL_ACCESS_TOKEN") {
		t.Errorf("secret not moved:\n%s", out)
	}
	_, show, _ := e.jarvis(t, "", "mcp", "show", "test-box")
	if !strings.Contains(show, "GITHUB_PERSONAL_ACCESS_TOKEN=${MCP_TEST_BOX_GITHUB_PERSONAL_ACCESS_TOKEN}") || !strings.Contains(show, "MODE=demo") {
		t.Errorf("show:\n%s", show)
	}
	// The secret is in the keyring and nowhere in the database.
	_, list, _ := e.jarvis(t, "", "secrets", "list")
	if !strings.Contains(list, "MCP_TEST_BOX_GITHUB_PERSONAL_ACCESS_TOKEN") {
		t.Errorf("keyring: %s", list)
	}
	if strings.Contains(databaseBytes(t, e), "ghp_abcdefghijklmnopqrstuvwxyz") {
		t.Error("the token reached the database")
	}
	for _, bad := range []string{"{", `{"other": {}}`} {
		os.WriteFile(file, []byte(bad), 0o600)
		if code, _, errOut := e.jarvis(t, "", "mcp", "import", file); code != 2 || errOut == "" {
			t.Errorf("import %q: exit %d %q", bad, code, errOut)
		}
	}
	os.WriteFile(file, []byte(`{"mcpServers": {"x": {"command": "true"}}, "pad": "`+strings.Repeat("x", 1<<20)+`"}`), 0o600)
	if code, _, errOut := e.jarvis(t, "", "mcp", "import", file); code != 2 || !strings.Contains(errOut, "is too large") {
		t.Errorf("import of a file over 1 MiB: exit %d %q", code, errOut)
	}
	if code, _, errOut := e.jarvis(t, "", "mcp", "import", filepath.Dir(file)); code != 2 || !strings.Contains(errOut, "is a folder") {
		t.Errorf("import of a directory: exit %d %q", code, errOut)
	}
}
