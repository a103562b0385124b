package mcphost

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/secrets"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

func writeFile(t *testing.T, text string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestReadImportFormatsM1: the mcp.json of Claude Desktop, Claude Code and
// Cursor (mcpServers) and of VS Code (servers) read as the same servers;
// keys become jarvisbot names; an entry that cannot be read says why and
// leaves the others readable.
func TestReadImportFormatsM1(t *testing.T) {
	type want struct {
		key, name, transport string
		timeout              time.Duration
		err                  string
	}
	cases := []struct {
		name, file string
		want       []want
		err        string
	}{
		{"claude desktop", `{"mcpServers": {"GitHub Server": {"command": "npx", "args": ["-y", "x"], "env": {"A": "b"}}}}`,
			[]want{{key: "GitHub Server", name: "github-server"}}, ""},
		{"vs code", `{"servers": {"web": {"type": "http", "url": "https://example.test/mcp"}, "old": {"type": "sse", "url": "https://example.test/sse"}}}`,
			[]want{{key: "old", name: "old", transport: SSE}, {key: "web", name: "web", transport: StreamableHTTP}}, ""},
		{"cursor timeout in seconds", `{"mcpServers": {"slow": {"type": "stdio", "command": "x", "timeout": 1.5}}}`,
			[]want{{key: "slow", name: "slow", transport: Stdio, timeout: 1500 * time.Millisecond}}, ""},
		{"bad entries told one by one", `{"mcpServers": {"???": {"command": "x"}, "ws": {"type": "websocket"}, "list": ["x"], "neg": {"command": "x", "timeout": -1}, "ok": {"command": "x"}}}`,
			[]want{{key: "???", err: "no letter or digit"}, {key: "list", err: "not a server entry"}, {key: "neg", err: "negative"}, {key: "ok", name: "ok"}, {key: "ws", err: "websocket"}}, ""},
		{"no servers", `{"mcpServers": {}}`, nil, `no "mcpServers"`},
		{"not JSON", `mcpServers: {}`, nil, "is not a JSON mcp.json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ReadImport(writeFile(t, c.file))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
					t.Fatalf("err %v, want EINVALID with %q", err, c.err)
				}
				return
			}
			if err != nil || len(got) != len(c.want) {
				t.Fatalf("got %+v (%v), want %d entries", got, err, len(c.want))
			}
			for i, w := range c.want {
				g := got[i]
				if g.Key != w.key || (w.err == "") != (g.Err == nil) || g.Err != nil && !strings.Contains(g.Err.Error(), w.err) {
					t.Errorf("entry %d: %q err %v, want %q err %q", i, g.Key, g.Err, w.key, w.err)
					continue
				}
				if w.err == "" && (g.Server.Name != w.name || g.Server.Transport != w.transport || g.Server.Timeout != w.timeout || !g.Server.Enabled) {
					t.Errorf("entry %q: %+v, want name %q transport %q timeout %s, on", g.Key, g.Server, w.name, w.transport, w.timeout)
				}
			}
		})
	}
}

// TestMoveSecretsX3: every literal credential becomes a ${NAME} reference
// named for the server and what it was, with a suffix when the name is
// taken; a URL's user and password become a Basic header; a value mixing a
// literal with a reference is refused. Nothing is written.
func TestMoveSecretsX3(t *testing.T) {
	cases := []struct {
		name  string
		s     store.MCPServer
		taken []string
		refs  []string
		check func(store.MCPServer) bool
		err   string
	}{
		{name: "env", s: store.MCPServer{Name: "github", Command: "x", Env: map[string]string{"GITHUB_TOKEN": "ghp_0123456789abcdefABCDEF0123456789abcd"}},
			refs: []string{"MCP_GITHUB_GITHUB_TOKEN"}, check: func(s store.MCPServer) bool { return s.Env["GITHUB_TOKEN"] == "${MCP_GITHUB_GITHUB_TOKEN}" }},
		{name: "taken name", s: store.MCPServer{Name: "github", Command: "x", Env: map[string]string{"GITHUB_TOKEN": "ghp_0123456789abcdefABCDEF0123456789abcd"}},
			taken: []string{"MCP_GITHUB_GITHUB_TOKEN"}, refs: []string{"MCP_GITHUB_GITHUB_TOKEN_2"}},
		{name: "bearer keeps its scheme", s: store.MCPServer{Name: "web", URL: "https://example.test/mcp", Headers: map[string]string{"Authorization": "Bearer abc-def-ghi-0123"}},
			refs: []string{"MCP_WEB_AUTHORIZATION"}, check: func(s store.MCPServer) bool { return s.Headers["Authorization"] == "Bearer ${MCP_WEB_AUTHORIZATION}" }},
		{name: "user and password", s: store.MCPServer{Name: "web", URL: "https://me:pw-0123456789@example.test/mcp"},
			refs: []string{"MCP_WEB_AUTHORIZATION"}, check: func(s store.MCPServer) bool {
				return s.URL == "https://example.test/mcp" && s.Headers["Authorization"] == "Basic ${MCP_WEB_AUTHORIZATION}"
			}},
		{name: "password in an argument", s: store.MCPServer{Name: "pg", Command: "pg-mcp", Args: []string{"--dsn=postgresql://me:pw-0123@db/app", "host=db password=pw-4567"}},
			refs: []string{"MCP_PG_PASSWORD", "MCP_PG_PASSWORD_2"}, check: func(s store.MCPServer) bool {
				return s.Args[0] == "--dsn=postgresql://me:${MCP_PG_PASSWORD}@db/app" && s.Args[1] == "host=db password=${MCP_PG_PASSWORD_2}"
			}},
		{name: "mixed with a reference", s: store.MCPServer{Name: "web", Command: "x", Env: map[string]string{"API_KEY": "abc${OTHER}"}}, err: "cannot be split"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := c.s
			moves, err := MoveSecrets(&s, func(n string) bool { return slices.Contains(c.taken, n) })
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var refs []string
			for _, mv := range moves {
				refs = append(refs, mv.Ref)
			}
			if !slices.Equal(refs, c.refs) || !slices.Equal(s.Secrets, c.refs) || len(Literals(s)) != 0 {
				t.Errorf("moved to %v, server secrets %v, literals left %v; want %v", refs, s.Secrets, Literals(s), c.refs)
			}
			if c.check != nil && !c.check(s) {
				t.Errorf("settings after the move: %+v", s)
			}
		})
	}
	s := store.MCPServer{Name: "web", URL: "https://me:pw-0123456789@example.test/mcp"}
	moves, _ := MoveSecrets(&s, func(string) bool { return false })
	if want := base64.StdEncoding.EncodeToString([]byte("me:pw-0123456789")); len(moves) != 1 || moves[0].Value != want {
		t.Errorf("the Basic credential is %+v, want %s", moves, want)
	}
}

// adderEnv is a real store and file keyring for adding servers.
type adderEnv struct {
	db *sqlstore.DB
	kr *secrets.Keyring
}

func newAdderEnv(t *testing.T) adderEnv {
	t.Helper()
	dir := t.TempDir()
	db, err := sqlstore.Open(context.Background(), filepath.Join(dir, "jarvisbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	kr, err := secrets.Open(secrets.Options{Backend: secrets.BackendFile, Dir: filepath.Join(dir, "keyring"),
		Password: func() (string, error) { return "test-passphrase", nil }, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return adderEnv{db: db, kr: kr}
}

func (e adderEnv) adder() Adder {
	return Adder{Store: e.db, OpenKeyring: func() (Keyring, error) { return e.kr, nil }, Dial: DialOptions{InitTimeout: 10 * time.Second}}
}

// TestImportAllOrNothingX3M1: an import whose entries cannot all be added
// (here one that does not answer) records no server and writes no secret;
// the same file without it records every server, their literal secrets in
// the keyring and ${NAME} references in the store.
func TestImportAllOrNothingX3M1(t *testing.T) {
	ctx := context.Background()
	e := newAdderEnv(t)
	entry := func(token string, args ...string) map[string]any {
		return map[string]any{"command": testServer, "args": args, "env": map[string]string{"API_TOKEN": token}}
	}
	servers := map[string]any{"a-first": entry("tok-1-111111111111"), "b-second": entry("tok-2-222222222222"), "c-third": entry("tok-3-333333333333", "-exit-at-start", "7")}
	data, _ := json.Marshal(map[string]any{"mcpServers": servers})
	var refused []string
	_, _, err := e.adder().Import(ctx, writeFile(t, string(data)), func(name string, err error) { refused = append(refused, name+": "+err.Error()) })
	if err == nil || !strings.Contains(err.Error(), "nothing was imported: 1 of 3") || len(refused) != 1 || !strings.HasPrefix(refused[0], "c-third: not added") {
		t.Fatalf("import with a dead server: %v, refused %q", err, refused)
	}
	if list, _ := e.db.MCPServers(ctx); len(list) != 0 {
		t.Errorf("a failed import recorded %d servers", len(list))
	}
	if names, _ := e.kr.Names(ctx); len(names) != 0 {
		t.Errorf("a failed import left secrets %v in the keyring", names)
	}

	delete(servers, "c-third")
	data, _ = json.Marshal(map[string]any{"mcpServers": servers})
	list, total, err := e.adder().Import(ctx, writeFile(t, string(data)), func(name string, err error) { t.Errorf("refused %s: %v", name, err) })
	if err != nil || total != 2 || len(list) != 2 {
		t.Fatalf("import: %d of %d (%v)", len(list), total, err)
	}
	for _, c := range []struct{ server, ref, value string }{{"a-first", "MCP_A_FIRST_API_TOKEN", "tok-1-111111111111"}, {"b-second", "MCP_B_SECOND_API_TOKEN", "tok-2-222222222222"}} {
		s, err := e.db.MCPServer(ctx, c.server)
		if err != nil || s.Env["API_TOKEN"] != "${"+c.ref+"}" || !slices.Equal(s.Secrets, []string{c.ref}) || !s.Enabled || len(s.Tools) < 3 {
			t.Errorf("stored %s: %+v (%v)", c.server, s, err)
		}
		if v, err := e.kr.Get(ctx, c.ref); err != nil || v != c.value {
			t.Errorf("keyring %s = %q (%v), want %q", c.ref, v, err, c.value)
		}
	}
}

// TestAddExistingNameChangesNothingM1: adding a server under a name the
// store holds is refused before anything starts or is written.
func TestAddExistingNameChangesNothingM1(t *testing.T) {
	ctx := context.Background()
	e := newAdderEnv(t)
	s := store.MCPServer{Name: "box", Command: testServer, Enabled: true}
	if _, err := e.adder().Add(ctx, s); err != nil {
		t.Fatal(err)
	}
	s.Env = map[string]string{"API_TOKEN": "tok-9-999999999999"}
	a := e.adder()
	a.Progress = func(store.MCPServer) { t.Error("the server was started") }
	if _, err := a.Add(ctx, s); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT || !strings.Contains(err.Error(), "exists already") {
		t.Errorf("add under a taken name: %v, want ECONFLICT", err)
	}
	if names, _ := e.kr.Names(ctx); len(names) != 0 {
		t.Errorf("a refused add left secrets %v in the keyring", names)
	}
}

// TestSecretsInUseX3: a keyring name another server refers to or had
// moved there, or a CLI tool's environment names, is in use, with what
// uses it; the server being removed counts for nothing.
func TestSecretsInUseX3(t *testing.T) {
	servers := []store.MCPServer{
		{Name: "gone", Env: map[string]string{"A": "${ONLY_GONE}"}, Secrets: []string{"MCP_GONE_X"}},
		{Name: "web", URL: "https://example.test/?k=${SHARED}", Headers: map[string]string{"Authorization": "Bearer ${WEB_TOKEN}"}, Secrets: []string{"MCP_WEB_Y"}},
	}
	tools := []store.CLITool{{Name: "gh", Env: map[string]string{"GH_TOKEN": "${GH}"}}}
	got := SecretsInUse(servers, tools, "gone")
	want := map[string]string{"SHARED": "MCP server web", "WEB_TOKEN": "MCP server web", "MCP_WEB_Y": "MCP server web", "GH": "CLI tool cli:gh"}
	if len(got) != len(want) {
		t.Fatalf("in use %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s used by %q, want %q", k, got[k], v)
		}
	}
}

// TestAddKeepsInstructionsC5: what a server says at initialize is stored
// with it, so its derived usage card reads it while it is not running.
func TestAddKeepsInstructionsC5(t *testing.T) {
	ctx := context.Background()
	e := newAdderEnv(t)
	if _, err := e.adder().Add(ctx, store.MCPServer{Name: "guide", Command: testServer, Args: []string{"-instructions", "Gives directions and travel times."}, Enabled: true}); err != nil {
		t.Fatal(err)
	}
	s, err := e.db.MCPServer(ctx, "guide")
	if err != nil || s.Instructions != "Gives directions and travel times." {
		t.Errorf("stored instructions %q (%v)", s.Instructions, err)
	}
}
