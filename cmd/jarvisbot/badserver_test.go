package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// badToolList is a tools/list with two good tools among names no catalog
// can hold: empty, '/', a control character, over-long, repeated.
const badToolList = `[
  {"name": "list_widgets", "description": "List the widgets."},
  {"name": ""},
  {"name": "a/b", "description": "slash"},
  {"name": "bell\u0007", "description": "control character"},
  {"name": "` + "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn" + `"},
  {"name": "make_widget", "description": "Make a widget."},
  {"name": "make_widget", "description": "listed again"}
]`

// setCachedTools writes a server's remembered tool list straight into the
// store, as an older jarvisbot (or a damaged file) may have left it.
func setCachedTools(t *testing.T, e *testEnv, name, tools string) {
	t.Helper()
	db, err := sqlstore.Open(context.Background(), app.DBPath(mustConfig(t, e)))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.SetMCPServerTools(context.Background(), name, []byte(tools)); err != nil {
		t.Fatal(err)
	}
}

// TestBadToolNamesEveryCommandWorksM1: a server that lists tools with bad
// names is added with its good tools, and every command keeps working,
// also when such a list is already in the store (written by an older
// version) or the stored list cannot be read at all: route, chat, catalog,
// skills, mcp list/show/call/off/on/remove.
func TestBadToolNamesEveryCommandWorksM1(t *testing.T) {
	e := newTestEnv(t)
	f := withModel(t, e)
	file := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(file, []byte(badToolList), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := e.jarvis(t, "", "mcp", "add", "odd", "--", mcpTestServer(t), "-tools-file", file)
	if code != 0 || !strings.Contains(out, "Added odd") || !strings.Contains(out, ": 2 tools") {
		t.Fatalf("mcp add: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, `warning:`) || !strings.Contains(errOut, `"a/b"`) {
		t.Errorf("mcp add did not say which tools it left out:\n%s", errOut)
	}

	everyCommand := func(t *testing.T, stored string) {
		t.Helper()
		f.Push(fakellm.Step{Text: "Widgets ahead."})
		for _, args := range [][]string{
			{"route", "--json", "make a widget"},
			{"chat", "-m", "make a widget"},
			{"catalog", "list"},
			{"catalog", "export", "--cached"},
			{"catalog", "card", "odd"},
			{"skills", "list"},
			{"mcp", "list"},
			{"mcp", "show", "odd"},
			{"mcp", "call", "odd", "make_widget"},
			{"mcp", "off", "odd"},
			{"mcp", "on", "odd"},
		} {
			code, out, errOut := e.jarvis(t, "", args...)
			if code != 0 {
				t.Errorf("%s with %s stored: exit %d\n%s\n%s", strings.Join(args, " "), stored, code, out, errOut)
				continue
			}
			if strings.Contains(out, "a/b") || strings.Contains(out, "\a") {
				t.Errorf("%s with %s stored shows a tool that was left out:\n%s", strings.Join(args, " "), stored, out)
			}
			if args[0] == "route" && !strings.Contains(out, "mcp:odd/make_widget") {
				t.Errorf("route with %s stored does not offer odd's good tool:\n%s", stored, out)
			}
		}
	}
	t.Run("as listed", func(t *testing.T) { everyCommand(t, "the listed tools") })

	setCachedTools(t, e, "odd", `[{"name":"list_widgets"},{"name":"a/b"},{"name":"bell\u0007"},{"name":""},{"name":"make_widget"},{"name":"make_widget"}]`)
	t.Run("bad names stored", func(t *testing.T) { everyCommand(t, "bad names") })

	setCachedTools(t, e, "odd", `{"tools": "not a list"}`)
	for _, args := range [][]string{{"route", "make a widget"}, {"catalog", "list"}, {"mcp", "list"}, {"skills", "list"}} {
		if code, out, errOut := e.jarvis(t, "", args...); code != 0 {
			t.Errorf("%s with an unreadable stored list: exit %d\n%s\n%s", strings.Join(args, " "), code, out, errOut)
		}
	}
	if code, out, errOut := e.jarvis(t, "", "mcp", "remove", "odd"); code != 0 || !strings.Contains(out, "Removed") {
		t.Errorf("mcp remove with an unreadable stored list: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestMCPErrorsNeverQuoteSecretsX3: a server started with
// --env TOKEN=${MY_TOKEN} that prints its token to stderr and exits, at
// start or when a tool is called: neither `mcp add` nor `mcp call` prints
// the value; the message says where it was left out.
func TestMCPErrorsNeverQuoteSecretsX3(t *testing.T) {
	const token = "tok-CLI-s3cr3t-9021"
	e := newTestEnv(t)
	e.vars["JARVIS_MCP_INIT_TIMEOUT"] = "5s"
	e.mustJarvis(t, token+"\n", "secrets", "set", "MY_TOKEN")
	srv := mcpTestServer(t)
	clean := func(what string, code int, out, errOut string) {
		t.Helper()
		if strings.Contains(out+errOut, token) || strings.Contains(out+errOut, "s3cr3t") {
			t.Errorf("%s printed the secret (exit %d):\n%s\n%s", what, code, out, errOut)
		}
	}

	code, out, errOut := e.jarvis(t, "", "mcp", "add", "leaky", "--env", "TOKEN=${MY_TOKEN}", "--", srv, "-print-env", "TOKEN", "-exit-at-start", "1")
	clean("mcp add of a server that prints its token and exits", code, out, errOut)
	if code == 0 || !strings.Contains(errOut, "TOKEN=[redacted ${MY_TOKEN}]") {
		t.Errorf("mcp add: exit %d, want a refusal that shows where the token was left out:\n%s", code, errOut)
	}

	code, out, errOut = e.jarvis(t, "", "mcp", "add", "talker", "--env", "TOKEN=${MY_TOKEN}", "--", srv, "-print-env", "TOKEN")
	if code != 0 {
		t.Fatalf("mcp add: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = e.jarvis(t, "", "mcp", "call", "talker", "crash")
	clean("mcp call of a tool that crashes the server", code, out, errOut)
	if code == 0 || !strings.Contains(errOut, "[redacted ${MY_TOKEN}]") {
		t.Errorf("mcp call crash: exit %d:\n%s", code, errOut)
	}
	code, out, errOut = e.jarvis(t, "", "mcp", "list", "--check")
	clean("mcp list --check", code, out, errOut)
}
