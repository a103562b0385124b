// The real Claude Code and Codex CLIs, pinned in
// agents/cliagent/testdata/clis.txt and installed into the npm test cache,
// run headless against fakellm and call a tool of an MCP server over
// streamable HTTP with a bearer header, fully offline. What works, for the
// runner that spawns them (issue 18):
//
// Claude Code 2.1.332. Environment: HOME, PATH, ANTHROPIC_BASE_URL (the fake,
// no /v1), ANTHROPIC_API_KEY, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1,
// DISABLE_TELEMETRY=1, DISABLE_AUTOUPDATER=1. Stdin /dev/null. Argv:
//
//	claude -p PROMPT --output-format stream-json --verbose
//	  --mcp-config '{"mcpServers":{"jb":{"type":"http","url":URL,"headers":{"Authorization":"Bearer T"}}}}'
//	  --strict-mcp-config --bare --tools "" (--allowedTools mcp__jb | --permission-prompt-tool mcp__jb__approve)
//	  [--resume SESSION_ID]
//
// It streams POST /v1/messages?beta=true (stream:true), offering only
// mcp__jb__TOOL. Stdout is one JSON object a line: {"type":"system",
// "subtype":"ui_invalidate",…} (ignore), {"type":"system","subtype":"init",
// "session_id":…,"tools":[…],"mcp_servers":[{"name":"jb","status":"connected"}]},
// {"type":"assistant","message":{…,"content":[{"type":"tool_use",…}|{"type":"text",…}]}},
// {"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":…,
// "content":…,"is_error"?}]}}, and last {"type":"result","subtype":"success",
// "is_error":false,"result":FINAL TEXT,"session_id":…,"permission_denials":[…]}.
// The next turn passes --resume SESSION_ID with the same HOME and working
// directory (sessions live in HOME/.claude/projects/CWD); the result keeps
// the session id (--session-id UUID would choose it on the first turn). The permission prompt tool gets {tool_name, input,
// tool_use_id} and answers text {"behavior":"allow","updatedInput":INPUT}
// or {"behavior":"deny","message":…}; a denial reaches the model as an
// error tool_result carrying the message. A failed model call ends in a
// result with "is_error":true (subtype still "success"),
// "terminal_reason":"api_error", "api_error_status" and the error text in
// "result", and exit status 1. Without --bare, Claude Code offers tools of
// its own beside the MCP ones even with --tools "".
//
// Codex 0.171.0. Environment: HOME, PATH (its launcher is a node script),
// CODEX_HOME holding config.toml (model, model_provider="fake",
// check_for_update_on_startup=false, [model_providers.fake] base_url =
// fakellm's /v1, env_key="FAKE_KEY", wire_api="responses",
// request_max_retries=0, stream_max_retries=0: Codex otherwise retries a
// 403 or 5xx for some 20 seconds), and FAKE_KEY.
// Stdin /dev/null (an open pipe blocks it). Argv:
//
//	codex exec [resume] --json --skip-git-repo-check -c analytics.enabled=false --disable plugins
//	  -c mcp_servers.jb.url="URL" -c 'mcp_servers.jb.http_headers={Authorization="Bearer T"}'
//	  -c mcp_servers.jb.default_tools_approval_mode="approve"
//	  --disable shell_tool --disable multi_agent --disable goals --disable image_generation
//	  --disable apps -c web_search="disabled"
//	  [THREAD_ID] PROMPT
//
// It streams POST /v1/responses, offering the MCP tools as namespace
// "mcp__jb" (scripted as "mcp__jb__TOOL", answered with "namespace"). Stdout
// is JSONL: {"type":"thread.started","thread_id":…}, {"type":"turn.started"},
// {"type":"item.started"|"item.completed","item":{"type":"mcp_tool_call",
// "server":"jb","tool":…,"arguments":…,"result":…,"status":…}},
// {"type":"item.completed","item":{"type":"agent_message","text":FINAL TEXT}},
// {"type":"turn.completed","usage":…}; a failure is
// {"type":"turn.failed","error":{"message":…}} (after an {"type":"error"}
// line when the error body is not the API's shape) with exit status 1. The
// --disable flags leave only request_user_input and view_image of Codex's
// own tools offered beside the MCP ones. An
// item of type "error" before the turn (model metadata not found for an
// unknown model name) is a warning. The next turn is `codex exec resume …
// THREAD_ID PROMPT` with the same CODEX_HOME (so no --ephemeral); it reports
// the same thread_id.
package fakellm_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// echoServer is an MCP server over streamable HTTP behind a bearer token,
// with the tool "echo", which records what it was called with, and
// "approve", Claude Code's permission prompt tool, which records each
// question and answers with the behavior the test set.
type echoServer struct {
	URL string

	mu        sync.Mutex
	calls     []string
	approvals []map[string]any
	behavior  string // "allow" or "deny"
	badAuths  int
}

func newEchoServer(t *testing.T) *echoServer {
	t.Helper()
	e := &echoServer{behavior: "allow"}
	s := server.NewMCPServer("jb-test", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("approve",
		mcp.WithDescription("Decides whether a tool call may run."),
		mcp.WithString("tool_name", mcp.Required()),
		mcp.WithObject("input", mcp.Required()),
		mcp.WithString("tool_use_id"),
	), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := req.GetArguments()
		e.mu.Lock()
		e.approvals = append(e.approvals, args)
		behavior := e.behavior
		e.mu.Unlock()
		answer := map[string]any{"behavior": "allow", "updatedInput": args["input"]}
		if behavior == "deny" {
			answer = map[string]any{"behavior": "deny", "message": "The owner said no."}
		}
		text, err := json.Marshal(answer)
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText(string(text)), nil
	})
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

func (e *echoServer) Approvals() []map[string]any {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]map[string]any(nil), e.approvals...)
}

func (e *echoServer) BadAuths() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.badAuths
}

// cliPackages maps each CLI to its npm package.
var cliPackages = map[string]string{"claude": "@anthropic-ai/claude-code", "codex": "@openai/codex"}

// installedCLI returns the path of a CLI installed at its pinned version
// (agents/cliagent/testdata/clis.txt) in the npm test cache, or skips: the
// argv and events these tests check are those of the pinned release.
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
	pins, err := os.ReadFile(filepath.Join("..", "..", "..", "agents", "cliagent", "testdata", "clis.txt"))
	if err != nil {
		t.Fatal(err)
	}
	pkg := cliPackages[name]
	var want string
	for line := range strings.Lines(string(pins)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), pkg+"@"); ok {
			want = v
		}
	}
	if want == "" {
		t.Fatalf("clis.txt pins no version of %s", pkg)
	}
	var meta struct{ Version string }
	data, err := os.ReadFile(filepath.Join(dir, "node_modules", pkg, "package.json"))
	if err == nil {
		err = json.Unmarshal(data, &meta)
	}
	path := filepath.Join(dir, "node_modules", ".bin", name)
	if err == nil {
		_, err = os.Stat(path)
	}
	if err != nil || meta.Version != want {
		t.Skipf("%s@%s is not installed in %s (found %q, %v): scripts/test.sh installs the pins of agents/cliagent/testdata/clis.txt", pkg, want, dir, meta.Version, err)
	}
	return path
}

// runCLI runs argv with env and a closed stdin, returning stdout; it fails
// the test with stderr when the CLI exits non-zero.
func runCLI(t *testing.T, dir string, env []string, argv ...string) []byte {
	t.Helper()
	out, err := tryCLI(t, dir, env, argv...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// tryCLI runs argv with env and a closed stdin, returning stdout and, when
// the CLI exits non-zero, an error carrying its output.
func tryCLI(t *testing.T, dir string, env []string, argv ...string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = nil // /dev/null: Codex blocks on an open pipe
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("%s: %w\nstdout:\n%s\nstderr:\n%s", strings.Join(argv, " "), err, stdout.Bytes(), stderr.Bytes())
	}
	t.Logf("%s stdout:\n%s", filepath.Base(argv[0]), stdout.Bytes())
	if stderr.Len() > 0 {
		t.Logf("%s stderr:\n%s", filepath.Base(argv[0]), stderr.Bytes())
	}
	return stdout.Bytes(), nil
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

// event returns the first event whose fields match want (string values
// compared exactly), or fails.
func event(t *testing.T, events []map[string]any, want map[string]string) map[string]any {
	t.Helper()
	for _, ev := range events {
		ok := true
		for k, v := range want {
			if s, _ := ev[k].(string); s != v {
				ok = false
				break
			}
		}
		if ok {
			return ev
		}
	}
	t.Fatalf("no event with %v in %d events", want, len(events))
	return nil
}

// str reads a string at a path of object keys.
func str(v any, path ...string) string {
	for _, k := range path {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	s, _ := v.(string)
	return s
}

// echoScript is the same two turns for both CLIs: the model calls the MCP
// tool, then answers; on the resumed turn it answers from the history.
func echoScript(llm *fakellm.Server) {
	llm.Push(
		fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: "mcp__jb__echo", Input: `{"text":"hello from the model"}`}}},
		fakellm.Step{Text: "The tool said it back."},
		fakellm.Step{Text: "You asked me to echo hello."},
	)
}

// checkResumedHistory checks that the resumed turn's request carries the
// first turn: the prompt, the tool call and its result, the answer, and the
// new prompt last.
func checkResumedHistory(t *testing.T, req fakellm.Request, firstPrompt, secondPrompt string) {
	t.Helper()
	var texts, results []string
	var calls int
	for _, m := range req.Messages {
		if m.Text != "" {
			texts = append(texts, m.Text)
		}
		calls += len(m.ToolCallIDs)
		results = append(results, m.ToolResults...)
	}
	joined := strings.Join(texts, "\n")
	if !strings.Contains(joined, firstPrompt) || !strings.Contains(joined, "The tool said it back.") ||
		calls != 1 || len(results) != 1 || !strings.Contains(results[0], "echo: hello from the model") {
		t.Errorf("resumed request lacks the first turn: %+v", req.Messages)
	}
	if last := req.Messages[len(req.Messages)-1]; last.Role != "user" || !strings.Contains(last.Text, secondPrompt) {
		t.Errorf("resumed request's last message = %+v, want the new prompt", last)
	}
}

// claudeEnv is Claude Code's environment: the fake's URL and a key, and
// everything that would reach beyond it off.
func claudeEnv(t *testing.T, llm *fakellm.Server) (home string, env []string) {
	home, env = baseEnv(t)
	return home, append(env,
		"ANTHROPIC_BASE_URL="+llm.AnthropicURL(),
		"ANTHROPIC_API_KEY=sk-ant-test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
	)
}

// claudeArgs are the flags after -p PROMPT: stream-json out, the one MCP
// server over HTTP with its bearer, and no tools of Claude Code's own.
func claudeArgs(mcpSrv *echoServer, permission ...string) []string {
	mcpConfig := fmt.Sprintf(`{"mcpServers":{"jb":{"type":"http","url":%q,"headers":{"Authorization":"Bearer %s"}}}}`, mcpSrv.URL, mcpBearer)
	return append([]string{"--output-format", "stream-json", "--verbose",
		"--mcp-config", mcpConfig, "--strict-mcp-config",
		"--bare", "--tools", ""}, permission...)
}

func TestClaudeCodeCallsAnMCPToolOverHTTPAndResumes(t *testing.T) {
	claude := installedCLI(t, "claude")
	llm := fakellm.New(t)
	mcpSrv := newEchoServer(t)
	echoScript(llm)
	home, env := claudeEnv(t, llm)
	args := claudeArgs(mcpSrv, "--allowedTools", "mcp__jb")
	const firstPrompt, secondPrompt = "Echo hello, please.", "What did I ask you?"

	events := jsonLines(t, runCLI(t, home, env, append([]string{claude, "-p", firstPrompt}, args...)...))
	if got := mcpSrv.Calls(); len(got) != 1 || got[0] != "hello from the model" {
		t.Fatalf("echo calls = %q, want one with the model's text", got)
	}
	initEv := event(t, events, map[string]string{"type": "system", "subtype": "init"})
	session := str(initEv, "session_id")
	servers, _ := json.Marshal(initEv["mcp_servers"])
	tools, _ := json.Marshal(initEv["tools"])
	if session == "" || !strings.Contains(string(servers), `"status":"connected"`) || string(tools) != `["mcp__jb__approve","mcp__jb__echo"]` {
		t.Errorf("init: session %q, mcp_servers %s, tools %s", session, servers, tools)
	}
	event(t, events, map[string]string{"type": "user"}) // the tool_result
	result := event(t, events, map[string]string{"type": "result"})
	if str(result, "subtype") != "success" || str(result, "result") != "The tool said it back." || str(result, "session_id") != session || result["is_error"] != false {
		t.Errorf("result = %v", result)
	}
	first := llm.Requests()
	if len(first) != 2 || !slices.Equal(first[0].Tools, []string{"mcp__jb__approve", "mcp__jb__echo"}) || !first[0].Stream || first[0].Path != "/v1/messages" {
		t.Fatalf("requests = %+v, want two streamed ones offering only the MCP tools", first)
	}

	// The next turn resumes the session, in the same HOME and directory
	// (Claude Code keeps sessions under HOME/.claude/projects/CWD).
	events = jsonLines(t, runCLI(t, home, env, append([]string{claude, "-p", secondPrompt, "--resume", session}, args...)...))
	result = event(t, events, map[string]string{"type": "result"})
	if str(result, "result") != "You asked me to echo hello." || str(result, "session_id") != session {
		t.Errorf("resumed result = %v, want the answer in session %s", result, session)
	}
	reqs := llm.Requests()
	checkResumedHistory(t, reqs[len(reqs)-1], firstPrompt, secondPrompt)
	if mcpSrv.BadAuths() != 0 || llm.Pending() != 0 {
		t.Errorf("MCP requests without the bearer: %d; steps left: %d", mcpSrv.BadAuths(), llm.Pending())
	}
}

// codexHome writes the CODEX_HOME/config.toml that points Codex at the
// fake's Responses API. Retries are off: a request the script did not
// expect fails the test at once instead of after Codex's backoff.
func codexHome(t *testing.T, llm *fakellm.Server) string {
	t.Helper()
	dir := t.TempDir()
	config := fmt.Sprintf(`model = "gpt-test"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = %q
env_key = "FAKE_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
`, llm.OpenAIURL())
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCodexCallsAnMCPToolOverHTTPAndResumes(t *testing.T) {
	codex := installedCLI(t, "codex")
	llm := fakellm.New(t)
	mcpSrv := newEchoServer(t)
	echoScript(llm)
	home, env := baseEnv(t)
	env = append(env, "CODEX_HOME="+codexHome(t, llm), "FAKE_KEY=sk-test")
	args := []string{"--json", "--skip-git-repo-check",
		"-c", "analytics.enabled=false", "--disable", "plugins",
		"-c", "mcp_servers.jb.url=" + strconv.Quote(mcpSrv.URL),
		"-c", fmt.Sprintf("mcp_servers.jb.http_headers={Authorization=%q}", "Bearer "+mcpBearer),
		"-c", `mcp_servers.jb.default_tools_approval_mode="approve"`,
		// Codex's own tools off, jarvisbot's only (the default the issue
		// asks for); request_user_input and view_image stay offered.
		"--disable", "shell_tool", "--disable", "multi_agent", "--disable", "goals",
		"--disable", "image_generation", "--disable", "apps", "-c", `web_search="disabled"`}
	const firstPrompt, secondPrompt = "Echo hello, please.", "What did I ask you?"

	events := jsonLines(t, runCLI(t, home, env, append(append([]string{codex, "exec"}, args...), firstPrompt)...))
	if got := mcpSrv.Calls(); len(got) != 1 || got[0] != "hello from the model" {
		t.Fatalf("echo calls = %q, want one with the model's text", got)
	}
	thread := str(event(t, events, map[string]string{"type": "thread.started"}), "thread_id")
	var call, answer map[string]any
	for _, ev := range events {
		if ev["type"] != "item.completed" {
			continue
		}
		switch str(ev, "item", "type") {
		case "mcp_tool_call":
			call = ev
		case "agent_message":
			answer = ev
		}
	}
	if thread == "" || str(call, "item", "server") != "jb" || str(call, "item", "tool") != "echo" || str(call, "item", "status") != "completed" {
		t.Errorf("thread %q, tool call %v", thread, call)
	}
	if str(answer, "item", "text") != "The tool said it back." {
		t.Errorf("answer = %v", answer)
	}
	event(t, events, map[string]string{"type": "turn.completed"})
	first := llm.Requests()
	if len(first) != 2 || !slices.Contains(first[0].Tools, "mcp__jb__echo") || !first[0].Stream || first[0].API != "responses" {
		t.Fatalf("requests = %+v, want two streamed Responses calls offering the MCP tool", first)
	}
	for _, own := range []string{"exec_command", "write_stdin", "web_search", "multi_agent_v1__spawn_agent"} {
		if slices.Contains(first[0].Tools, own) {
			t.Errorf("Codex offered its own tool %s with it disabled: %q", own, first[0].Tools)
		}
	}

	// The next turn resumes the thread from the session files in CODEX_HOME.
	events = jsonLines(t, runCLI(t, home, env, append(append([]string{codex, "exec", "resume"}, args...), thread, secondPrompt)...))
	if got := str(event(t, events, map[string]string{"type": "thread.started"}), "thread_id"); got != thread {
		t.Errorf("resumed thread = %q, want %q", got, thread)
	}
	answer = nil
	for _, ev := range events {
		if ev["type"] == "item.completed" && str(ev, "item", "type") == "agent_message" {
			answer = ev
		}
	}
	if str(answer, "item", "text") != "You asked me to echo hello." {
		t.Errorf("resumed answer = %v", answer)
	}
	reqs := llm.Requests()
	checkResumedHistory(t, reqs[len(reqs)-1], firstPrompt, secondPrompt)
	if mcpSrv.BadAuths() != 0 || llm.Pending() != 0 {
		t.Errorf("MCP requests without the bearer: %d; steps left: %d", mcpSrv.BadAuths(), llm.Pending())
	}
}

// With no rule allowing the tool, Claude Code asks the permission prompt
// tool of the MCP server, as jarvisbot's session server answers for the
// owner's approvals: allowed, the call runs; denied, the model is told why.
func TestClaudeCodeAsksThePermissionPromptTool(t *testing.T) {
	claude := installedCLI(t, "claude")
	for _, behavior := range []string{"allow", "deny"} {
		t.Run(behavior, func(t *testing.T) {
			llm := fakellm.New(t)
			mcpSrv := newEchoServer(t)
			mcpSrv.behavior = behavior
			llm.Push(
				fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: "mcp__jb__echo", Input: `{"text":"may I?"}`}}},
				fakellm.Step{Text: "Done."},
			)
			home, env := claudeEnv(t, llm)
			events := jsonLines(t, runCLI(t, home, env, append([]string{claude, "-p", "Echo, if allowed."},
				claudeArgs(mcpSrv, "--permission-prompt-tool", "mcp__jb__approve")...)...))

			asked := mcpSrv.Approvals()
			if len(asked) != 1 || asked[0]["tool_name"] != "mcp__jb__echo" || str(asked[0], "input", "text") != "may I?" || str(asked[0], "tool_use_id") == "" {
				t.Fatalf("approval questions = %v, want one for the echo call", asked)
			}
			reqs := llm.Requests()
			results := reqs[len(reqs)-1].Messages[len(reqs[len(reqs)-1].Messages)-1].ToolResults
			calls := mcpSrv.Calls()
			switch behavior {
			case "allow":
				if len(calls) != 1 || len(results) != 1 || results[0] != "echo: may I?" {
					t.Errorf("allowed: calls %q, tool results %q", calls, results)
				}
			case "deny":
				if len(calls) != 0 || len(results) != 1 || !strings.Contains(results[0], "The owner said no.") {
					t.Errorf("denied: calls %q, tool results %q", calls, results)
				}
			}
			if result := event(t, events, map[string]string{"type": "result"}); str(result, "result") != "Done." {
				t.Errorf("result = %v", result)
			}
		})
	}
}

// A model that refuses the request ends the turn with an error each CLI
// reports on stdout and in its exit status, so the runner can tell the
// owner. 403 is a status Claude Code does not retry (it retries a 400
// twice, dropping anthropic-beta values in case a gateway refused them);
// Codex would retry it for some 20 seconds but for the provider's
// request_max_retries = 0.
func TestCLIsReportAModelRefusal(t *testing.T) {
	tests := []struct {
		cli   string
		argv  func(t *testing.T, llm *fakellm.Server, mcpSrv *echoServer) (home string, env, argv []string)
		check func(t *testing.T, events []map[string]any)
	}{
		{"claude", func(t *testing.T, llm *fakellm.Server, mcpSrv *echoServer) (string, []string, []string) {
			home, env := claudeEnv(t, llm)
			return home, env, append([]string{installedCLI(t, "claude"), "-p", "Hello?"}, claudeArgs(mcpSrv, "--allowedTools", "mcp__jb")...)
		}, func(t *testing.T, events []map[string]any) {
			result := event(t, events, map[string]string{"type": "result"})
			if result["is_error"] != true || !strings.Contains(str(result, "result"), "scripted refusal") {
				t.Errorf("result = %v, want an error naming the refusal", result)
			}
		}},
		{"codex", func(t *testing.T, llm *fakellm.Server, mcpSrv *echoServer) (string, []string, []string) {
			home, env := baseEnv(t)
			env = append(env, "CODEX_HOME="+codexHome(t, llm), "FAKE_KEY=sk-test")
			return home, env, []string{installedCLI(t, "codex"), "exec", "--json", "--skip-git-repo-check",
				"-c", "analytics.enabled=false", "--disable", "plugins", "Hello?"}
		}, func(t *testing.T, events []map[string]any) {
			failed := event(t, events, map[string]string{"type": "turn.failed"})
			if !strings.Contains(str(failed, "error", "message"), "scripted refusal") {
				t.Errorf("turn.failed = %v, want the refusal's message", failed)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.cli, func(t *testing.T) {
			llm := fakellm.New(t)
			mcpSrv := newEchoServer(t)
			llm.Push(fakellm.Step{Status: http.StatusForbidden, Text: "scripted refusal"})
			home, env, argv := tt.argv(t, llm, mcpSrv)
			out, err := tryCLI(t, home, env, argv...)
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("exit = %v, want status 1", err)
			}
			tt.check(t, jsonLines(t, out))
			if n := len(llm.Requests()); n != 1 {
				t.Errorf("%d model requests, want 1: the refusal is not retried", n)
			}
		})
	}
}
