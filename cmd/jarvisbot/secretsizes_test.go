package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMCPArgPasswordStaysInTheKeyringX3: `mcp add NAME -- CMD
// postgresql://me:PASSWORD@db/app` moves the password to the keyring as a
// reference, the server still starts with it on its command line, and mcp
// list, list --json, show, the database and export never show it.
func TestMCPArgPasswordStaysInTheKeyringX3(t *testing.T) {
	e := newTestEnv(t)
	withModel(t, e)
	withTelegram(t, e) // a channel that keeps serve running
	const pw = "pg-arg-password-0123"
	dsn := "postgresql://me:" + pw + "@db.example/app?sslmode=disable"
	code, out, errOut := e.jarvis(t, "", "mcp", "add", "pg", "--", mcpTestServer(t), "-dsn", dsn)
	if code != 0 {
		t.Fatalf("mcp add: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "MCP_PG_PASSWORD") || !strings.Contains(out, "keyring") || strings.Contains(out+errOut, pw) {
		t.Errorf("mcp add does not say the password moved to the keyring, or prints it:\n%s\n%s", out, errOut)
	}
	if got := keyringContents(t, e)["MCP_PG_PASSWORD"]; got != pw {
		t.Errorf("keyring MCP_PG_PASSWORD = %q, want the password", got)
	}
	if code, got, errOut := e.jarvis(t, "", "mcp", "call", "pg", "dsn"); code != 0 || strings.TrimSpace(got) != dsn {
		t.Errorf("the server was not started with the password: exit %d %q %s", code, got, errOut)
	}
	_, list, _ := e.jarvis(t, "", "mcp", "list")
	_, listJSON, _ := e.jarvis(t, "", "mcp", "list", "--json")
	_, show, _ := e.jarvis(t, "", "mcp", "show", "pg")
	if !strings.Contains(show, "postgresql://me:${MCP_PG_PASSWORD}@db.example/app") {
		t.Errorf("show does not give the reference:\n%s", show)
	}

	key := addApp(t, e, "backup", "full")
	url, _, stop := serveWithSurface(t, e)
	defer stop()
	export, isErr := callApp(t, appClient(t, url, key), "export", nil)
	if isErr || !strings.Contains(export, "${MCP_PG_PASSWORD}") {
		t.Errorf("export: %s", export)
	}
	for what, text := range map[string]string{"mcp list": list, "mcp list --json": listJSON, "mcp show": show, "the database": databaseBytes(t, e), "export": export} {
		if strings.Contains(text, pw) {
			t.Errorf("%s holds the password:\n%s", what, text)
		}
	}
}

// TestAgentDescriptionsAreBoundedAndShownEscapedX1X2: a 2 KiB description
// is refused by every door with the field and the limit (the CLI and an
// app's agent_create alike), and one holding ESC is listed with it shown
// as \x1b, never as a raw terminal escape.
func TestAgentDescriptionsAreBoundedAndShownEscapedX1X2(t *testing.T) {
	e := newTestEnv(t)
	withModel(t, e)
	withTelegram(t, e)
	long := strings.Repeat("reviews code ", 2<<10/13+1)
	code, _, errOut := e.jarvis(t, "", "agents", "add", "big", "--describe", long)
	if code == 0 || !strings.Contains(errOut, "the description of agent big") || !strings.Contains(errOut, "at most 1 KiB") {
		t.Errorf("agents add with a 2 KiB description: exit %d %q", code, errOut)
	}
	e.mustJarvis(t, "", "agents", "add", "painter", "--describe", "paints \x1b[2J\x1b[31mred\x1b[0m pictures\nand more")
	_, list, _ := e.jarvis(t, "", "agents", "list")
	_, show, _ := e.jarvis(t, "", "agents", "show", "painter")
	for what, text := range map[string]string{"agents list": list, "agents show": show} {
		if strings.ContainsRune(text, 0x1b) || !strings.Contains(text, `paints \x1b[2J\x1b[31mred\x1b[0m pictures\nand more`) {
			t.Errorf("%s does not show the escapes escaped:\n%q", what, text)
		}
	}
	if strings.Contains(list, "big") {
		t.Errorf("the refused agent is listed:\n%s", list)
	}

	key := addApp(t, e, "ops", "full")
	url, _, stop := serveWithSurface(t, e)
	defer stop()
	text, isErr := callApp(t, appClient(t, url, key), "agent_create", map[string]any{"name": "big", "description": long})
	if !isErr || !strings.Contains(text, "the description of agent big") || !strings.Contains(text, "at most 1 KiB") {
		t.Errorf("agent_create with a 2 KiB description: %q (error %v)", text, isErr)
	}
}

// TestImportRoundTripsExportAllOrNothingM4X2: through a running serve and
// an app's full key, an exported switched-off skill is switched off again
// by import; a dry run reports the refusal the real import then fails
// with, and the failing import adds nothing (not even its valid parts).
func TestImportRoundTripsExportAllOrNothingM4X2(t *testing.T) {
	e := newTestEnv(t)
	withModel(t, e)
	withTelegram(t, e)
	e.mustJarvis(t, "", "skills", "off", "humanizer")
	key := addApp(t, e, "backup", "full")
	url, _, stop := serveWithSurface(t, e)
	defer stop()
	app := appClient(t, url, key)

	export, isErr := callApp(t, app, "export", nil)
	if isErr {
		t.Fatalf("export: %s", export)
	}
	var data map[string]any
	if err := json.Unmarshal([]byte(export), &data); err != nil {
		t.Fatalf("export is not JSON: %v\n%s", err, export)
	}
	// The owner switches it back on; importing the export switches it off.
	e.mustJarvis(t, "", "skills", "on", "humanizer")
	text, isErr := callApp(t, app, "import", map[string]any{"data": data})
	if isErr || !strings.Contains(text, "skill humanizer: switched off") {
		t.Errorf("import: %s", text)
	}
	if _, show, _ := e.jarvis(t, "", "skills", "show", "humanizer"); !strings.Contains(show, "off (switched off)") {
		t.Errorf("after the import, humanizer is not off:\n%s", show)
	}

	// One bad part: the dry run says it, the import refuses it, and adds
	// nothing, not even the good agent.
	data["agents"] = []any{
		map[string]any{"name": "reviewer", "description": "reviews pull requests"},
		map[string]any{"name": "big", "description": strings.Repeat("x", 2<<10)},
	}
	dry, isErr := callApp(t, app, "import", map[string]any{"data": data, "dry_run": true})
	var rep struct {
		Added   []string `json:"added"`
		Refused []string `json:"refused"`
	}
	if err := json.Unmarshal([]byte(dry), &rep); err != nil || isErr || len(rep.Refused) != 1 || !strings.Contains(rep.Refused[0], "at most 1 KiB") || len(rep.Added) != 0 {
		t.Fatalf("dry run: %s (error %v)", dry, isErr)
	}
	text, isErr = callApp(t, app, "import", map[string]any{"data": data})
	if !isErr || !strings.Contains(text, rep.Refused[0]) || !strings.Contains(text, "added nothing") {
		t.Errorf("import with a refused part: %q (error %v), want the dry run's refusal %q", text, isErr, rep.Refused[0])
	}
	if _, list, _ := e.jarvis(t, "", "agents", "list"); strings.Contains(list, "reviewer") {
		t.Errorf("the failed import added an agent:\n%s", list)
	}
}
