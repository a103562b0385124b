package main

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/store/secrets"
)

// testKeyring opens the keyring e's config names, as commands do.
func testKeyring(t *testing.T, e *testEnv) *secrets.Keyring {
	t.Helper()
	a := &cli{Env: app.Env{Getenv: e.getenv}}
	cfg, err := a.LoadConfig()
	if err != nil {
		t.Fatal(err)
	}
	k, err := a.OpenSecrets(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// keyringContents reads every secret of the test's file keyring.
func keyringContents(t *testing.T, e *testEnv) map[string]string {
	t.Helper()
	k := testKeyring(t, e)
	names, err := k.Names(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, n := range names {
		v, err := k.Get(context.Background(), n)
		if err != nil {
			t.Fatal(err)
		}
		out[n] = v
	}
	return out
}

// setSecret stores a secret the way the owner does.
func setSecret(t *testing.T, e *testEnv, name, value string) {
	t.Helper()
	e.mustJarvis(t, value, "secrets", "set", name)
}

// databaseBytes is everything the database keeps on disk: the file and its
// write-ahead log.
func databaseBytes(t *testing.T, e *testEnv) string {
	t.Helper()
	var all []byte
	for _, suffix := range []string{"", "-wal", "-journal"} {
		b, err := os.ReadFile(filepath.Join(e.vars["JARVIS_DATA_DIR"], "jarvisbot.db"+suffix))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return string(all)
}

// TestMCPAddMovesLiteralSecretsX3M1: a literal credential given to `mcp
// add` (an --env value, a --header, a command-line flag, a URL query
// parameter, a URL's password) goes to the keyring as a ${NAME} reference;
// the server still gets the value when it starts; list, list --json and
// show print only the reference; the database never holds the value.
func TestMCPAddMovesLiteralSecretsX3M1(t *testing.T) {
	e := newTestEnv(t)
	srv := mcpTestServer(t)
	// Each case has its own key, so that a leak names the case.
	type tc struct {
		name string
		key  string
		args func(key string) []string
		ref  string // the keyring name the value moves to
		tool string // the tool that shows the server got the value
	}
	cases := []tc{
		{"envtoken", "ghp_EnvTokenValue0123456789abcdefABCDEF", func(k string) []string {
			return []string{"--env", "GITHUB_TOKEN=" + k, "--", srv}
		}, "MCP_ENVTOKEN_GITHUB_TOKEN", "env"},
		{"argeq", "sk-ArgEqualsValue0123456789abcdef", func(k string) []string {
			return []string{"--", srv, "--key=" + k}
		}, "MCP_ARGEQ_KEY", "key"},
		{"argnext", "hunter2-next-arg-value", func(k string) []string {
			return []string{"--", srv, "-name", "box", "--key", k}
		}, "MCP_ARGNEXT_KEY", "key"},
		{"bearer", "bearer-header-value-0123", func(k string) []string {
			return []string{"--header", "Authorization: Bearer " + k, httpTestServer(t, "-key", k)}
		}, "MCP_BEARER_AUTHORIZATION", "key"},
		{"apikeyheader", "x-api-key-header-value", func(k string) []string {
			return []string{"--header", "X-Api-Key: " + k, httpTestServer(t, "-key", k)}
		}, "MCP_APIKEYHEADER_X_API_KEY", "key"},
		{"query", "query-api-key-value-0123", func(k string) []string {
			return []string{httpTestServer(t, "-key", k) + "?api_key=" + k + "&mode=full"}
		}, "MCP_QUERY_API_KEY", "key"},
		{"querytoken", "query-token-value-0123", func(k string) []string {
			return []string{httpTestServer(t, "-key", k) + "?token=" + k}
		}, "MCP_QUERYTOKEN_TOKEN", "key"},
		{"userinfo", "url-password-value-0123", func(k string) []string {
			u := httpTestServer(t, "-key", k)
			return []string{strings.Replace(u, "http://", "http://me:"+k+"@", 1)}
		}, "MCP_USERINFO_AUTHORIZATION", "key"},
	}
	for _, c := range cases {
		args := append([]string{"mcp", "add", c.name}, c.args(c.key)...)
		code, out, errOut := e.jarvis(t, "", args...)
		if code != 0 || !strings.Contains(out, "Added "+c.name) {
			t.Errorf("%s: exit %d\n%s\n%s", c.name, code, out, errOut)
			continue
		}
		if !strings.Contains(out, c.ref) || !strings.Contains(out, "keyring") {
			t.Errorf("%s: the output does not say the value moved to the keyring as %s:\n%s", c.name, c.ref, out)
		}
		if strings.Contains(out+errOut, c.key) {
			t.Errorf("%s: mcp add printed the secret:\n%s\n%s", c.name, out, errOut)
		}
		if got := keyringContents(t, e)[c.ref]; !strings.HasSuffix(got, c.key) && got != basicAuth("me", c.key) {
			t.Errorf("%s: keyring %s = %q", c.name, c.ref, got)
		}
		// The server still gets the value: a stdio server in its
		// environment or command line, an HTTP server in each request.
		callArgs := []string{"mcp", "call", c.name, c.tool}
		if c.tool == "env" {
			callArgs = append(callArgs, `{"name": "GITHUB_TOKEN"}`)
		}
		if code, out, errOut := e.jarvis(t, "", callArgs...); code != 0 || strings.TrimSpace(out) != c.key {
			t.Errorf("%s: the server did not get the value: exit %d %q %s", c.name, code, out, errOut)
		}
		_, show, _ := e.jarvis(t, "", "mcp", "show", c.name)
		if !strings.Contains(show, "${"+c.ref+"}") {
			t.Errorf("%s: show does not name ${%s}:\n%s", c.name, c.ref, show)
		}
	}
	_, list, _ := e.jarvis(t, "", "mcp", "list")
	_, listJSON, _ := e.jarvis(t, "", "mcp", "list", "--json")
	var shows strings.Builder
	for _, c := range cases {
		_, show, errOut := e.jarvis(t, "", "mcp", "show", c.name)
		shows.WriteString(show + errOut)
	}
	db := databaseBytes(t, e)
	for _, c := range cases {
		for what, text := range map[string]string{"mcp list": list, "mcp list --json": listJSON, "mcp show": shows.String(), "the database": db} {
			if strings.Contains(text, c.key) {
				t.Errorf("%s: %s holds the secret", c.name, what)
			}
		}
	}
	if !strings.Contains(list, "${MCP_QUERY_API_KEY}") || !strings.Contains(listJSON, "${MCP_ARGEQ_KEY}") {
		t.Errorf("list does not show the references:\n%s\n%s", list, listJSON)
	}
}

// TestMCPAddSecretRefusalsX3: what cannot move is refused with the way to
// do it, and nothing is stored.
func TestMCPAddSecretRefusalsX3(t *testing.T) {
	e := newTestEnv(t)
	before := keyringContents(t, e)
	cases := []struct {
		args []string
		want []string
	}{
		// Credentials twice: in the URL and in a header.
		{[]string{"mcp", "add", "twice", "--header", "Authorization: Bearer abcdefghijkl", "https://me:pw-secret-123@example.test/mcp"}, []string{"Authorization", "jarvisbot secrets set"}},
		// A literal glued to a reference cannot be split.
		{[]string{"mcp", "add", "glued", "--env", "API_KEY=pre${OTHER}", "--", "true"}, []string{"API_KEY", "jarvisbot secrets set"}},
		// A header without its name is refused without repeating it.
		{[]string{"mcp", "add", "nameless", "--header", "Bearer abcdefghijkl", "https://example.test/mcp"}, []string{"--header", "KEY:VALUE"}},
	}
	for _, c := range cases {
		code, out, errOut := e.jarvis(t, "", c.args...)
		if code == 0 {
			t.Errorf("%v: accepted:\n%s", c.args[2:], out)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: %q does not say %q", c.args[2:], errOut, w)
			}
		}
		if strings.Contains(out+errOut, "pw-secret-123") || strings.Contains(out+errOut, "abcdefghijkl") {
			t.Errorf("%v: the refusal repeats the secret: %s", c.args[2:], errOut)
		}
	}
	if after := keyringContents(t, e); !maps.Equal(before, after) {
		t.Errorf("refused adds changed the keyring: %v", after)
	}
}

func basicAuth(user, pw string) string {
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + pw))
}

// storeState is what `mcp list --json` says and the keyring holds.
type storeState struct {
	list    string
	keyring map[string]string
}

func snapshotState(t *testing.T, e *testEnv) storeState {
	t.Helper()
	code, out, errOut := e.jarvis(t, "", "mcp", "list", "--json")
	if code != 0 {
		t.Fatalf("mcp list: %s", errOut)
	}
	return storeState{list: out, keyring: keyringContents(t, e)}
}

// TestMCPImportAllOrNothingX3M1: an import whose third server is invalid
// (its name, a conflict with an existing server or with another entry, its
// settings, or it does not answer) changes no secret and no server.
func TestMCPImportAllOrNothingX3M1(t *testing.T) {
	e := newTestEnv(t)
	e.vars["JARVIS_MCP_INIT_TIMEOUT"] = "5s"
	srv := mcpTestServer(t)
	e.mustJarvis(t, "", "mcp", "add", "taken", "--", srv)
	setSecret(t, e, "KEPT", "kept-value")
	good := func(token string) map[string]any {
		return map[string]any{"command": srv, "env": map[string]string{"API_TOKEN": token}}
	}
	cases := []struct {
		name  string
		third map[string]any // the entries after "a-first" and "b-second"
		want  string
	}{
		{"existing name", map[string]any{"taken": good("tok-3-aaaaaaaaaaaa")}, "taken"},
		{"two entries one name", map[string]any{"c-third": good("tok-3-bbbbbbbbbbbb"), "C Third": good("tok-4-cccccccccccc")}, "c-third"},
		{"no valid name", map[string]any{"c!!!": good("tok-3-dddddddddddd"), "???": good("tok-4-eeeeeeeeeeee")}, "name"},
		{"bad settings", map[string]any{"c-third": map[string]any{"command": srv, "url": "https://example.test/mcp"}}, "c-third"},
		{"bad transport", map[string]any{"c-third": map[string]any{"type": "websocket", "url": "wss://example.test"}}, "websocket"},
		{"not an object", map[string]any{"c-third": []string{"x"}}, "c-third"},
		{"does not answer", map[string]any{"c-third": map[string]any{"command": srv, "args": []string{"-exit-at-start", "7"}, "env": map[string]string{"API_TOKEN": "tok-3-ffffffffffff"}}}, "status 7"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			entries := map[string]any{"a-first": good("tok-1-111111111111"), "b-second": good("tok-2-222222222222")}
			maps.Copy(entries, c.third)
			file := filepath.Join(t.TempDir(), "mcp.json")
			data, _ := json.Marshal(map[string]any{"mcpServers": entries})
			os.WriteFile(file, data, 0o600)
			before := snapshotState(t, e)
			code, out, errOut := e.jarvis(t, "", "mcp", "import", file)
			if code == 0 {
				t.Fatalf("import succeeded:\n%s", out)
			}
			if !strings.Contains(out+errOut, c.want) || !strings.Contains(out+errOut, "nothing was imported") {
				t.Errorf("the message does not name %q and say nothing was imported:\n%s\n%s", c.want, out, errOut)
			}
			after := snapshotState(t, e)
			if after.list != before.list {
				t.Errorf("servers changed:\nbefore %s\nafter  %s", before.list, after.list)
			}
			if !maps.Equal(after.keyring, before.keyring) {
				t.Errorf("keyring changed:\nbefore %v\nafter  %v", before.keyring, after.keyring)
			}
		})
	}
	// The same file without its bad entry imports whole.
	file := filepath.Join(t.TempDir(), "mcp.json")
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"a-first": good("tok-1-111111111111"), "b-second": good("tok-2-222222222222")}})
	os.WriteFile(file, data, 0o600)
	if code, out, errOut := e.jarvis(t, "", "mcp", "import", file); code != 0 || !strings.Contains(out, "Imported 2 of 2") {
		t.Fatalf("import: exit %d\n%s\n%s", code, out, errOut)
	}
	kr := keyringContents(t, e)
	if kr["MCP_A_FIRST_API_TOKEN"] != "tok-1-111111111111" || kr["MCP_B_SECOND_API_TOKEN"] != "tok-2-222222222222" || kr["KEPT"] != "kept-value" {
		t.Errorf("keyring after the import: %v", kr)
	}
}

// TestMCPRemoveDeletesOnlyItsSecretsX3: removing a server deletes the
// secrets jarvisbot moved to the keyring for it, unless another server, a
// CLI tool or the config refers to them; secrets the owner set stay.
func TestMCPRemoveDeletesOnlyItsSecretsX3(t *testing.T) {
	e := newTestEnv(t)
	srv := mcpTestServer(t)
	setSecret(t, e, "OWNERS_TOKEN", "owners-own-value")
	code, out, errOut := e.jarvis(t, "", "mcp", "add", "one",
		"--env", "ACCESS_TOKEN=only-one-uses-this",
		"--env", "SHARED_TOKEN=another-server-uses-this",
		"--env", "DB_PASSWORD=a-cli-tool-uses-this",
		"--env", "SECRET_KEY=the-config-uses-this",
		"--env", "OWN_TOKEN=${OWNERS_TOKEN}",
		"--", srv)
	if code != 0 {
		t.Fatalf("add one: %s\n%s", out, errOut)
	}
	e.mustJarvis(t, "", "mcp", "add", "two", "--env", "X=${MCP_ONE_SHARED_TOKEN}", "--", srv)
	e.mustJarvis(t, "", "cli", "add", "echo", "--env", "PW=${MCP_ONE_DB_PASSWORD}")
	e.writeConfig(t, "provider:\n  api_key_secret: MCP_ONE_SECRET_KEY\n")
	code, out, errOut = e.jarvis(t, "", "mcp", "remove", "one")
	if code != 0 {
		t.Fatalf("remove: %s", errOut)
	}
	kr := keyringContents(t, e)
	if _, ok := kr["MCP_ONE_ACCESS_TOKEN"]; ok {
		t.Error("the secret only the removed server used is still in the keyring")
	}
	for _, kept := range []string{"MCP_ONE_SHARED_TOKEN", "MCP_ONE_DB_PASSWORD", "MCP_ONE_SECRET_KEY", "OWNERS_TOKEN"} {
		if _, ok := kr[kept]; !ok {
			t.Errorf("%s was deleted, though something else refers to it or the owner set it", kept)
		}
	}
	if !strings.Contains(out, "MCP_ONE_ACCESS_TOKEN") || !strings.Contains(out, "MCP_ONE_SHARED_TOKEN") {
		t.Errorf("remove does not say which secrets went and which stayed:\n%s", out)
	}

	// When what refers to secrets cannot be read (a damaged CLI tool row),
	// the server is still removed, and its secrets stay.
	e.mustJarvis(t, "", "mcp", "add", "three", "--env", "API_TOKEN=three-uses-this", "--", srv)
	sqldb, err := sql.Open("sqlite", filepath.Join(e.vars["JARVIS_DATA_DIR"], "jarvisbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer sqldb.Close()
	if _, err := sqldb.Exec(`UPDATE cli_tools SET env = '[1]'`); err != nil {
		t.Fatal(err)
	}
	sqldb.Close()
	code, out, errOut = e.jarvis(t, "", "mcp", "remove", "three")
	if code != 0 || !strings.Contains(out, "Kept its secrets MCP_THREE_API_TOKEN") {
		t.Errorf("remove beside a damaged CLI tool: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, ok := keyringContents(t, e)["MCP_THREE_API_TOKEN"]; !ok {
		t.Error("a secret was deleted though what refers to secrets could not be read")
	}
}

// TestMCPDamagedRowsStayManageableM1ST1: no row in the store locks the
// owner out: a server whose name, settings, cached tools or stored JSON
// no longer pass today's checks is still listed, shown, switched off and
// removed, and a literal secret an older version stored is never printed.
func TestMCPDamagedRowsStayManageableM1ST1(t *testing.T) {
	e := newTestEnv(t)
	e.mustJarvis(t, "", "mcp", "list")
	const oldSecret = "old-literal-secret-value"
	sqldb, err := sql.Open("sqlite", filepath.Join(e.vars["JARVIS_DATA_DIR"], "jarvisbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer sqldb.Close()
	rows := []struct{ name, transport, command, args, env, url, headers, tools, created string }{
		{"Bad Name", "stdio", "true", `[]`, `{}`, "", `{}`, `[]`, ""},
		{"a/b", "stdio", "true", `[]`, `{}`, "", `{}`, `[{"name": "x"}]`, ""},
		{"ctl\x1bname", "stdio", "true", `[]`, `{}`, "", `{}`, `[]`, ""},
		{"tools-object", "stdio", "true", `[]`, `{}`, "", `{}`, `{"not": "a list"}`, ""},
		{"tools-bad-entry", "stdio", "true", `[]`, `{}`, "", `{}`, `[{"name": 7}, "x"]`, ""},
		{"tools-bad-name", "stdio", "true", `[]`, `{}`, "", `{}`, `[{"name": "bad/tool"}, {"name": ""}]`, ""},
		{"tools-not-json", "stdio", "true", `[]`, `{}`, "", `{}`, `not json`, ""},
		{"args-object", "stdio", "true", `{"x": 1}`, `{}`, "", `{}`, `[]`, ""},
		{"env-list", "stdio", "true", `[]`, `["x"]`, "", `{}`, `[]`, ""},
		{"no-command", "stdio", "", `[]`, `{}`, "", `{}`, `[]`, ""},
		{"user-in-url", "streamable-http", "", `[]`, `{}`, "https://me:" + oldSecret + "@example.test/mcp", `{}`, `[]`, ""},
		{"old-literals", "stdio", "true", `["--password", "` + oldSecret + `"]`, `{"API_TOKEN": "` + oldSecret + `"}`, "", `{}`, `[]`, ""},
		{"old-header", "streamable-http", "", `[]`, `{}`, "https://example.test/mcp?api_key=" + oldSecret, `{"Authorization": "Bearer ` + oldSecret + `"}`, `[]`, ""},
		{"bad-time", "stdio", "true", `[]`, `{}`, "", `{}`, `[]`, "yesterday"},
	}
	// An older jarvisbot or a hand edit may have left what the constraints
	// of today's schema refuse.
	if _, err := sqldb.Exec(`PRAGMA ignore_check_constraints = ON`); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		created := r.created
		if created == "" {
			created = "2026-01-02T03:04:05.000000000Z"
		}
		_, err := sqldb.Exec(`INSERT INTO mcp_servers (name, transport, command, args, env, cwd, url, headers, timeout_ms, trusted, enabled, plugin, tools, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, '', ?, ?, 0, 0, 1, '', ?, ?, ?)`, r.name, r.transport, r.command, r.args, r.env, r.url, r.headers, r.tools, created, created)
		if err != nil {
			t.Fatalf("insert %q: %v", r.name, err)
		}
	}
	sqldb.Close()

	noSecret := func(what, text string) {
		t.Helper()
		if strings.Contains(text, oldSecret) {
			t.Errorf("%s prints the stored literal secret:\n%s", what, text)
		}
	}
	code, list, errOut := e.jarvis(t, "", "mcp", "list")
	if code != 0 {
		t.Fatalf("mcp list: exit %d %s", code, errOut)
	}
	noSecret("mcp list", list+errOut)
	code, listJSON, errOut := e.jarvis(t, "", "mcp", "list", "--json")
	var parsed []app.ServerRow
	if code != 0 || json.Unmarshal([]byte(listJSON), &parsed) != nil || len(parsed) != len(rows) {
		t.Fatalf("mcp list --json: exit %d %s %s", code, listJSON, errOut)
	}
	noSecret("mcp list --json", listJSON+errOut)
	for _, r := range rows {
		if !strings.Contains(listJSON, mustJSON(r.name)) {
			t.Errorf("%q is not listed:\n%s", r.name, listJSON)
		}
		code, show, errOut := e.jarvis(t, "", "mcp", "show", r.name)
		if code != 0 {
			t.Errorf("show %q: exit %d\n%s%s", r.name, code, show, errOut)
		}
		noSecret("mcp show "+r.name, show+errOut)
		// A name with control characters is shown quoted, and found when
		// typed back that way.
		if code, _, errOut := e.jarvis(t, "", "mcp", "off", mcphost.ShownName(r.name)); code != 0 {
			t.Errorf("off %s: %s", mcphost.ShownName(r.name), errOut)
		}
	}
	if !strings.Contains(list, `"ctl\x1bname"`) || strings.Contains(list, "\x1b") || strings.Count(list, "needs attention") < len(rows)-1 {
		t.Errorf("mcp list does not flag the damaged servers, or prints a control character raw:\n%s", list)
	}
	for _, name := range []string{"args-object", "no-command", "Bad Name"} {
		if code, _, errOut := e.jarvis(t, "", "mcp", "on", name); code == 0 || !strings.Contains(errOut, "mcp remove") {
			t.Errorf("on %q: exit %d %s, want a refusal that says to remove it", name, code, errOut)
		}
	}
	for _, cmd := range [][]string{{"route", "hello"}, {"catalog", "list"}} {
		if code, out, errOut := e.jarvis(t, "", cmd...); code != 0 {
			t.Errorf("%v with every damaged server off: exit %d %s", cmd, code, errOut)
		} else {
			noSecret(cmd[0], out+errOut)
		}
	}
	for _, r := range rows {
		if code, _, errOut := e.jarvis(t, "", "mcp", "remove", r.name); code != 0 {
			t.Errorf("remove %q: %s", r.name, errOut)
		}
	}
	if _, out, _ := e.jarvis(t, "", "mcp", "list", "--json"); strings.TrimSpace(out) != "[]" {
		t.Errorf("left after removing every one: %s", out)
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
