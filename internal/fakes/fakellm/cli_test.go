package fakellm_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
)

// cliDeadline bounds one run of a real CLI; a slow shared machine needs
// more than the seconds a run takes on an idle one.
const cliDeadline = 3 * time.Minute

// mcpBearer is the token the test MCP server demands, as a session server
// would hand one to the CLI.
const mcpBearer = "test-session-token"

// echoServer is an MCP server over streamable HTTP with one tool, "echo",
// behind a bearer token; it records what the tool was called with.
type echoServer struct {
	URL string

	mu       sync.Mutex
	calls    []string
	badAuths int
}

func newEchoServer(t *testing.T) *echoServer {
	t.Helper()
	e := &echoServer{}
	s := server.NewMCPServer("jb-test", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("echo",
		mcp.WithDescription("Echoes the text back."),
		mcp.WithString("text", mcp.Required(), mcp.Description("what to echo")),
	), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		text, err := req.RequireString("text")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		e.mu.Lock()
		e.calls = append(e.calls, text)
		e.mu.Unlock()
		return mcp.NewToolResultText("echo: " + text), nil
	})
	h := server.NewStreamableHTTPServer(s)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+mcpBearer {
			e.mu.Lock()
			e.badAuths++
			e.mu.Unlock()
			http.Error(w, "bearer token required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	e.URL = srv.URL + "/mcp"
	return e
}

func (e *echoServer) Calls() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.calls...)
}

// installedCLI returns the path of a CLI installed from
// agents/cliagent/testdata/clis.txt into the npm test cache, or skips.
func installedCLI(t *testing.T, name string) string {
	t.Helper()
	dir := os.Getenv("JARVIS_NPM_CACHE")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Skipf("no user cache directory to find the npm test cache in: %v", err)
		}
		dir = filepath.Join(cache, "jarvisbot-test", "npm")
	}
	path := filepath.Join(dir, "node_modules", ".bin", name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s is not installed in %s: scripts/test.sh installs the pins of agents/cliagent/testdata/clis.txt (%v)", name, dir, err)
	}
	return path
}

// runCLI runs argv with env and a closed stdin, returning stdout; it fails
// the test with stderr when the CLI exits non-zero.
func runCLI(t *testing.T, dir string, env []string, argv ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = nil // /dev/null: Codex blocks on an open pipe
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(argv, " "), err, stdout.Bytes(), stderr.Bytes())
	}
	t.Logf("%s stdout:\n%s", filepath.Base(argv[0]), stdout.Bytes())
	if stderr.Len() > 0 {
		t.Logf("%s stderr:\n%s", filepath.Base(argv[0]), stderr.Bytes())
	}
	return stdout.Bytes()
}

// jsonLines parses one JSON object per line.
func jsonLines(t *testing.T, out []byte) []map[string]any {
	t.Helper()
	var events []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatalf("not a JSON line: %s: %v", line, err)
		}
		events = append(events, ev)
	}
	return events
}

// baseEnv is the clean environment a CLI gets: a fresh HOME, the PATH
// (Codex's launcher is a node script), and nothing else of the test's.
func baseEnv(t *testing.T) (home string, env []string) {
	home = t.TempDir()
	return home, []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}
}

func TestClaudeCodeCallsAnMCPToolThroughFakellm(t *testing.T) {
	claude := installedCLI(t, "claude")
	llm := fakellm.New(t)
	mcpSrv := newEchoServer(t)
	llm.Push(
		fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: "mcp__jb__echo", Input: `{"text":"hello from the model"}`}}},
		fakellm.Step{Text: "The tool said it back."},
	)
	home, env := baseEnv(t)
	env = append(env,
		"ANTHROPIC_BASE_URL="+llm.AnthropicURL(),
		"ANTHROPIC_API_KEY=sk-ant-test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
	)
	mcpConfig := fmt.Sprintf(`{"mcpServers":{"jb":{"type":"http","url":%q,"headers":{"Authorization":"Bearer %s"}}}}`, mcpSrv.URL, mcpBearer)
	out := runCLI(t, home, env, claude, "-p", "Echo hello, please.",
		"--output-format", "stream-json", "--verbose",
		"--mcp-config", mcpConfig, "--strict-mcp-config",
		"--bare", "--tools", "", "--allowedTools", "mcp__jb")
	for i, r := range llm.Requests() {
		t.Logf("request %d: %s %s tools=%v msgs=%+v", i, r.API, r.Path, r.Tools, r.Messages)
	}
	_ = jsonLines(t, out)
	if got := mcpSrv.Calls(); len(got) != 1 || got[0] != "hello from the model" {
		t.Fatalf("echo calls = %q, want one with the model's text", got)
	}
}

// codexHome writes the CODEX_HOME/config.toml that points Codex at the
// fake's Responses API.
func codexHome(t *testing.T, llm *fakellm.Server) string {
	t.Helper()
	dir := t.TempDir()
	config := fmt.Sprintf(`model = "gpt-test"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = %q
env_key = "FAKE_KEY"
wire_api = "responses"
`, llm.OpenAIURL())
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCodexCallsAnMCPToolThroughFakellm(t *testing.T) {
	codex := installedCLI(t, "codex")
	llm := fakellm.New(t)
	mcpSrv := newEchoServer(t)
	llm.Push(
		fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: "mcp__jb__echo", Input: `{"text":"hello from the model"}`}}},
		fakellm.Step{Text: "The tool said it back."},
	)
	home, env := baseEnv(t)
	env = append(env, "CODEX_HOME="+codexHome(t, llm), "FAKE_KEY=sk-test")
	out := runCLI(t, home, env, codex, "exec", "--json", "--skip-git-repo-check",
		"-c", "analytics.enabled=false", "--disable", "plugins",
		"-c", "mcp_servers.jb.url="+strconv.Quote(mcpSrv.URL),
		"-c", fmt.Sprintf("mcp_servers.jb.http_headers={Authorization=%q}", "Bearer "+mcpBearer),
		"-c", `mcp_servers.jb.default_tools_approval_mode="approve"`,
		"Echo hello, please.")
	for i, r := range llm.Requests() {
		t.Logf("request %d: %s %s tools=%v msgs=%+v", i, r.API, r.Path, r.Tools, r.Messages)
	}
	_ = jsonLines(t, out)
	if got := mcpSrv.Calls(); len(got) != 1 || got[0] != "hello from the model" {
		t.Fatalf("echo calls = %q, want one with the model's text", got)
	}
}
