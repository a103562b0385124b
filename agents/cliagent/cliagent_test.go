package cliagent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/llm"
)

// fakeDir holds the fake CLI built once for the package's tests, as
// "claude" and "codex".
var fakeDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cliagent-fake-")
	if err != nil {
		panic(err)
	}
	out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "claude"), "./testdata/fakecli").CombinedOutput()
	if err != nil {
		panic("building the fake CLI: " + err.Error() + "\n" + string(out))
	}
	for _, name := range []string{"codex", "claude-old"} {
		if err := os.Link(filepath.Join(dir, "claude"), filepath.Join(dir, name)); err != nil {
			panic(err)
		}
	}
	fakeDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// sessionServers is a stand-in for the session MCP server (agents/session):
// one echo tool behind a one-off bearer token per turn.
type sessionServers struct {
	mu     sync.Mutex
	tokens []string
	calls  []string // echo's inputs, as the server saw them
	closed int
}

func (s *sessionServers) start(_ context.Context, _ agents.DelegateTurn) (string, string, func(), error) {
	b := make([]byte, 16)
	rand.Read(b)
	token := "tok-" + hex.EncodeToString(b)
	m := server.NewMCPServer("session", "1")
	m.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s.mu.Lock()
		s.calls = append(s.calls, req.GetString("text", ""))
		s.mu.Unlock()
		return mcp.NewToolResultText("echo(" + req.GetString("text", "") + ")"), nil
	})
	h := server.NewStreamableHTTPServer(m)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	s.mu.Lock()
	s.tokens = append(s.tokens, token)
	s.mu.Unlock()
	return srv.URL + "/mcp", token, func() {
		srv.Close()
		s.mu.Lock()
		s.closed++
		s.mu.Unlock()
	}, nil
}

// run is what the fake CLI recorded of one start.
type run struct {
	Args []string `json:"args"`
	Env  []string `json:"env"`
}

func readRun(t *testing.T, home string, n int) run {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, "run-"+strconv.Itoa(n)+".json"))
	if err != nil {
		t.Fatalf("the CLI's start %d was not recorded: %v", n, err)
	}
	var r run
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r run) env(name string) (string, bool) {
	for _, kv := range r.Env {
		if k, v, _ := strings.Cut(kv, "="); k == name {
			return v, true
		}
	}
	return "", false
}

// jarvisEnv is jarvisbot's environment in a test: the CLIs' settings, a
// proxy, and secrets that must not reach the CLI.
func jarvisEnv(home string) map[string]string {
	return map[string]string{
		"PATH":               os.Getenv("PATH"),
		"HOME":               home,
		"ANTHROPIC_BASE_URL": "http://127.0.0.1:9/anthropic",
		"OPENAI_BASE_URL":    "http://127.0.0.1:9/v1",
		"CODEX_HOME":         filepath.Join(home, "codex"),
		"CLAUDE_CODE_X":      "cc",
		"https_proxy":        "http://proxy:3128",
		"TELEGRAM_BOT_TOKEN": "telegram-secret",
		"DISCORD_BOT_TOKEN":  "discord-secret",
		"JARVIS_APP_KEY":     "app-secret",
		"GITHUB_TOKEN":       "gh-secret",
	}
}

func newCLI(t *testing.T, kind string, vars map[string]string, s *sessionServers, timeout time.Duration) *CLI {
	t.Helper()
	var environ []string
	for k, v := range vars {
		environ = append(environ, k+"="+v)
	}
	c, err := New(Options{Kind: kind, Command: filepath.Join(fakeDir, defaultCommand(kind)),
		Getenv: func(k string) string { return vars[k] }, Environ: func() []string { return environ },
		Timeout: timeout, Dir: filepath.Join(vars["HOME"], "work"), MCP: s.start})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestTurnM5: a turn on each CLI reaches jarvisbot's tool through the
// session server with a token that is never on argv, gets a clean
// environment with the CLI's own settings, keeps the CLI's session and
// resumes it on the next turn (history only in the first prompt), and
// ends with the CLI's final answer.
func TestTurnM5(t *testing.T) {
	for _, tc := range []struct {
		kind, session string
		resume        func(args []string, id string) bool
	}{
		{ClaudeCode, "session-new", func(args []string, id string) bool { return hasPair(args, "--resume", id) }},
		{Codex, "thread-new", func(args []string, id string) bool { return hasPair(args, "resume", id) }},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			home := t.TempDir()
			vars := jarvisEnv(home)
			s := &sessionServers{}
			c := newCLI(t, tc.kind, vars, s, time.Minute)
			var kept []string
			turn := agents.DelegateTurn{Agent: "a", Chat: "c", Text: "what is on today?", System: "You are jarvisbot.",
				History:    []llm.Message{{Role: llm.RoleUser, Text: "earlier question"}, {Role: llm.RoleAssistant, Text: "earlier answer"}},
				SetSession: func(_ context.Context, id string) error { kept = append(kept, id); return nil }}
			res, err := c.Turn(t.Context(), turn)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.calls) != 1 || !strings.Contains(s.calls[0], "what is on today?") || !strings.Contains(s.calls[0], "earlier answer") {
				t.Fatalf("the tool saw %q, want the message with the history folded in", s.calls)
			}
			if res.Text != "answer: echo("+s.calls[0]+")" {
				t.Errorf("answer %q, want the CLI's final text", res.Text)
			}
			if len(kept) != 1 || kept[0] != tc.session {
				t.Errorf("kept sessions %q, want [%s]", kept, tc.session)
			}

			turn.Session, turn.Text = kept[0], "and tomorrow?"
			res, err = c.Turn(t.Context(), turn)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.calls) != 2 || strings.Contains(s.calls[1], "earlier answer") || !strings.HasSuffix(s.calls[1], "and tomorrow?") {
				t.Errorf("resumed turn's prompt %q: want the message alone, no history", s.calls[1])
			}
			if !strings.HasPrefix(res.Text, "answer: ") || len(kept) != 1 {
				t.Errorf("resumed turn: answer %q, kept %q", res.Text, kept)
			}
			if s.closed != 2 {
				t.Errorf("session servers closed %d times, want 2", s.closed)
			}

			for n := range 2 {
				r := readRun(t, home, n)
				for _, a := range r.Args {
					for _, tok := range s.tokens {
						if strings.Contains(a, tok) {
							t.Errorf("turn %d: the session token is on argv: %q", n+1, a)
						}
					}
				}
				if got := tc.resume(r.Args, tc.session); got != (n == 1) {
					t.Errorf("turn %d: resumes %s = %v in %q", n+1, tc.session, got, r.Args)
				}
				for _, secret := range []string{"TELEGRAM_BOT_TOKEN", "DISCORD_BOT_TOKEN", "JARVIS_APP_KEY", "GITHUB_TOKEN"} {
					if _, ok := r.env(secret); ok {
						t.Errorf("turn %d: %s reached the CLI", n+1, secret)
					}
				}
				for _, name := range []string{"PATH", "HOME", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "CODEX_HOME", "CLAUDE_CODE_X", "https_proxy"} {
					if v, _ := r.env(name); v != vars[name] {
						t.Errorf("turn %d: %s = %q, want %q passed through", n+1, name, v, vars[name])
					}
				}
				if tc.kind == ClaudeCode {
					for _, q := range []string{"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "DISABLE_TELEMETRY", "DISABLE_AUTOUPDATER"} {
						if v, _ := r.env(q); v != "1" {
							t.Errorf("turn %d: %s = %q, want 1", n+1, q, v)
						}
					}
					for _, flag := range []string{"--mcp-config", "--system-prompt-file"} {
						if i := index(r.Args, flag); i < 0 {
							t.Errorf("turn %d: no %s in %q", n+1, flag, r.Args)
						} else if _, err := os.Stat(r.Args[i+1]); !errors.Is(err, os.ErrNotExist) {
							t.Errorf("turn %d: %s's file outlived the turn (%v)", n+1, flag, err)
						}
					}
					if !hasPair(r.Args, "--tools", "") || !hasPair(r.Args, "--allowedTools", "mcp__jb") {
						t.Errorf("turn %d: own tools not off or MCP tools not allowed: %q", n+1, r.Args)
					}
					if !hasPair(r.Args, "--system-prompt-snapshot", "off") {
						t.Errorf("turn %d: a resumed session would keep its first system prompt: %q", n+1, r.Args)
					}
					// --bare would refuse the owner's subscription sign-in.
					if !hasPair(r.Args, "--setting-sources", "") || index(r.Args, "--bare") >= 0 {
						t.Errorf("turn %d: want the owner's settings skipped without --bare: %q", n+1, r.Args)
					}
				}
			}
		})
	}
}

// TestTurnClaudeOwnToolsAskThroughApproveM5: with the CLI's own tools on,
// Claude Code keeps them and asks the session server's approve tool;
// Codex, which cannot ask, is refused.
func TestTurnClaudeOwnToolsAskThroughApproveM5(t *testing.T) {
	home := t.TempDir()
	vars := jarvisEnv(home)
	s := &sessionServers{}
	c, err := New(Options{Kind: ClaudeCode, Command: filepath.Join(fakeDir, "claude"), Getenv: func(k string) string { return vars[k] },
		Environ: func() []string { return nil }, Dir: home, MCP: s.start, OwnTools: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Turn(t.Context(), agents.DelegateTurn{Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	r := readRun(t, home, 0)
	if !hasPair(r.Args, "--permission-prompt-tool", "mcp__jb__approve") || index(r.Args, "--tools") >= 0 {
		t.Errorf("argv %q: want --permission-prompt-tool mcp__jb__approve and the CLI's tools kept", r.Args)
	}
	_, err = New(Options{Kind: Codex, MCP: s.start, OwnTools: true})
	if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "approvals") {
		t.Errorf("codex with own tools: %v, want a refusal that says why", err)
	}
}

// TestTurnHungCLIKilledAtDeadlineM5: a CLI that never answers costs the
// turn at its deadline: its whole process group dies (the child it
// started too), the error says so with its last stderr, and the session
// server is closed.
func TestTurnHungCLIKilledAtDeadlineM5(t *testing.T) {
	for _, kind := range []string{ClaudeCode, Codex} {
		t.Run(kind, func(t *testing.T) {
			home := t.TempDir()
			s := &sessionServers{}
			c := newCLI(t, kind, jarvisEnv(home), s, 5*time.Second)
			start := time.Now()
			_, err := c.Turn(t.Context(), agents.DelegateTurn{Text: "please hang"})
			if took := time.Since(start); took > time.Minute {
				t.Errorf("the turn took %s, beyond its deadline", took)
			}
			if err == nil || !strings.Contains(err.Error(), defaultCommand(kind)+" did not finish the turn within 5s and was stopped") ||
				!strings.Contains(err.Error(), "thinking very hard") {
				t.Fatalf("err = %v, want the deadline and the CLI's last stderr", err)
			}
			if s.closed != 1 {
				t.Errorf("session server closed %d times, want 1", s.closed)
			}
			b, err := os.ReadFile(filepath.Join(home, "child.pid"))
			if err != nil {
				t.Fatalf("the hung CLI's child never started: %v", err)
			}
			pid, _ := strconv.Atoi(string(b))
			for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				if dead(pid) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the CLI's child %d outlived the turn", pid)
				}
			}
		})
	}
}

// TestTurnCrashingCLIGivesItsStderrM5: a CLI that exits with an error
// costs the turn with its status and last stderr lines, or the failure it
// reported in its events when it did.
func TestTurnCrashingCLIGivesItsStderrM5(t *testing.T) {
	for _, tc := range []struct{ kind, text, want string }{
		{ClaudeCode, "crash now", "claude exited with status 1: starting | Error: invalid API key"},
		{Codex, "crash now", "codex exited with status 1: starting | Error: invalid API key"},
		{ClaudeCode, "api error", "claude exited with status 1: API Error: 400 nope"},
		{Codex, "api error", "codex exited with status 1: quota exceeded"},
	} {
		t.Run(tc.kind+" "+tc.text, func(t *testing.T) {
			home := t.TempDir()
			s := &sessionServers{}
			c := newCLI(t, tc.kind, jarvisEnv(home), s, time.Minute)
			_, err := c.Turn(t.Context(), agents.DelegateTurn{Text: tc.text, SetSession: func(context.Context, string) error { return nil }})
			if err == nil || err.Error() != tc.want {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if s.closed != 1 {
				t.Errorf("session server closed %d times, want 1", s.closed)
			}
		})
	}
}

// TestVersionSaysWhatToInstallM5: Version names the CLI, its version and
// path, or says exactly what to install.
func TestVersionSaysWhatToInstallM5(t *testing.T) {
	s := &sessionServers{}
	for _, tc := range []struct{ kind, version, install string }{
		{ClaudeCode, "2.1.9", "npm install -g @anthropic-ai/claude-code"},
		{Codex, "0.171.0", "npm install -g @openai/codex"},
	} {
		path := filepath.Join(fakeDir, defaultCommand(tc.kind))
		c, err := New(Options{Kind: tc.kind, Command: path, MCP: s.start})
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Version(t.Context())
		if want := tc.kind + " " + tc.version + " found at " + path; err != nil || got != want {
			t.Errorf("Version() = %q, %v; want %q", got, err, want)
		}
		c, _ = New(Options{Kind: tc.kind, Command: filepath.Join(t.TempDir(), "missing"), MCP: s.start})
		_, err = c.Version(t.Context())
		if jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND || !strings.Contains(err.Error(), tc.install) {
			t.Errorf("missing %s: %v, want not found saying %q", tc.kind, err, tc.install)
		}
		if _, err := c.Turn(t.Context(), agents.DelegateTurn{Text: "hi"}); !strings.Contains(fmtErr(err), tc.install) {
			t.Errorf("a turn on a missing %s: %v, want what to install", tc.kind, err)
		}
	}
}

// TestParserLinesM5: unknown events and stray lines are ignored, a line
// beyond the limit is skipped whole, and a CLI's own failure report ends
// the turn with its message.
func TestParserLinesM5(t *testing.T) {
	long := `{"type":"assistant","message":{"content":[{"type":"text","text":"` + strings.Repeat("x", maxLine) + `"}]}}`
	for _, tc := range []struct {
		kind, stream, text, err string
	}{
		{ClaudeCode, "not json\n{\"type\":\"mystery\"}\n" + long + "\n{\"type\":\"result\",\"subtype\":\"success\",\"result\":\"ok\"}\n", "ok", ""},
		{ClaudeCode, `{"type":"result","subtype":"error_max_turns","is_error":true}` + "\n", "", "claude reported the turn failed: error_max_turns"},
		{ClaudeCode, `{"type":"assistant","message":{"content":[{"type":"text","text":"half"}]}}` + "\n", "", "claude ended without finishing the turn"},
		{Codex, `{"type":"error","message":"Reconnecting 1/5"}` + "\n" + `{"type":"turn.failed","error":{"message":"quota exceeded"}}` + "\n", "", "codex reported the turn failed: quota exceeded"},
		{Codex, `{"type":"error","message":"stream disconnected"}` + "\n", "", "codex ended without finishing the turn: stream disconnected"},
		{Codex, `{"type":"item.completed","item":{"type":"agent_message","text":"done"}}` + "\n" + `{"type":"turn.completed"}`, "done", ""},
	} {
		p := &parser{kind: tc.kind, log: discard()}
		p.read(t.Context(), strings.NewReader(tc.stream))
		res, err := p.result()
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: err %v, want %q", tc.kind, err, tc.err)
			}
			continue
		}
		if err != nil || res.Text != tc.text {
			t.Errorf("%s: %q, %v; want %q", tc.kind, res.Text, err, tc.text)
		}
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func index(args []string, s string) int {
	for i, a := range args {
		if a == s {
			return i
		}
	}
	return -1
}

func hasPair(args []string, k, v string) bool {
	i := index(args, k)
	return i >= 0 && i+1 < len(args) && args[i+1] == v
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// dead says whether pid is gone or a zombie (killed, waiting for whoever
// adopted it to reap it).
func dead(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(rest, "Z")
}

// TestOlderClaudeCodeWithoutSnapshotM5: a Claude Code older than
// --system-prompt-snapshot (its --help does not list it) is not given the
// option, so its turns run instead of failing as "unknown option";
// Version says what it lacks and which release to install; the CLI is
// asked once per binary, not every turn. A CLI that still refuses an
// option fails the turn saying which release jarvisbot needs.
func TestOlderClaudeCodeWithoutSnapshotM5(t *testing.T) {
	home := t.TempDir()
	vars := jarvisEnv(home)
	s := &sessionServers{}
	var environ []string
	for k, v := range vars {
		environ = append(environ, k+"="+v)
	}
	old := filepath.Join(fakeDir, "claude-old")
	probes := &Probes{}
	newOld := func() *CLI {
		c, err := New(Options{Kind: ClaudeCode, Command: old, Getenv: func(k string) string { return vars[k] },
			Environ: func() []string { return environ }, Timeout: time.Minute, Dir: filepath.Join(home, "work"), MCP: s.start, Probes: probes})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	v, err := newOld().Version(t.Context())
	if err != nil || !strings.HasPrefix(v, "claude-code 1.0.128 found at "+old) || !strings.Contains(v, "--system-prompt-snapshot") ||
		!strings.Contains(v, TestedClaudeCode) || !strings.Contains(v, "npm install -g @anthropic-ai/claude-code") {
		t.Errorf("Version() = %q, %v; want the version, what it lacks and what to install", v, err)
	}
	for n := range 2 {
		res, err := newOld().Turn(t.Context(), agents.DelegateTurn{Text: "hello", System: "You are jarvisbot.", SetSession: func(context.Context, string) error { return nil }})
		if err != nil || !strings.HasPrefix(res.Text, "answer: ") {
			t.Fatalf("turn %d on the older CLI: %q, %v", n+1, res.Text, err)
		}
		if r := readRun(t, home, n); index(r.Args, "--system-prompt-snapshot") >= 0 || index(r.Args, "--system-prompt-file") < 0 {
			t.Errorf("turn %d: args %q, want the system prompt file without the snapshot option", n+1, r.Args)
		}
	}
	probes.mu.Lock()
	if len(probes.seen) != 1 {
		t.Errorf("%d binaries probed, want the one", len(probes.seen))
	}
	probes.mu.Unlock()

	// The current CLI lists the option and is given it.
	v, err = newCLI(t, ClaudeCode, vars, s, time.Minute).Version(t.Context())
	if err != nil || strings.Contains(v, "snapshot") {
		t.Errorf("Version() of a current CLI = %q, %v; want no complaint", v, err)
	}

	_, err = newOld().Turn(t.Context(), agents.DelegateTurn{Text: "reject an option", SetSession: func(context.Context, string) error { return nil }})
	if err == nil || !strings.Contains(err.Error(), "unknown option '--strict-mcp-config'") || !strings.Contains(err.Error(), "1.0.128") ||
		!strings.Contains(err.Error(), TestedClaudeCode+" or later") {
		t.Errorf("err = %v, want the refused option, the version found and the one needed", err)
	}
}

// TestTestedClaudeCodeIsThePinnedOneM5: the release the errors name is the
// one the tests install.
func TestTestedClaudeCodeIsThePinnedOneM5(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "clis.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "@anthropic-ai/claude-code@"+TestedClaudeCode+"\n") {
		t.Errorf("testdata/clis.txt does not pin Claude Code %s", TestedClaudeCode)
	}
}

// TestParserUsage: the tokens each CLI reports for its turn are kept, with
// the model Claude Code names; Codex counts cached input inside the input,
// as the Responses API does.
func TestParserUsage(t *testing.T) {
	for _, tc := range []struct {
		kind, stream, model string
		want                llm.Usage
	}{
		{ClaudeCode, `{"type":"system","subtype":"init","session_id":"s","model":"claude-sonnet-4-5-20250929"}` + "\n" +
			`{"type":"result","subtype":"success","result":"ok","usage":{"input_tokens":12,"cache_creation_input_tokens":300,"cache_read_input_tokens":4000,"output_tokens":56}}` + "\n",
			"claude-sonnet-4-5-20250929", llm.Usage{InputTokens: 12, OutputTokens: 56, CacheReadTokens: 4000, CacheWriteTokens: 300}},
		{Codex, `{"type":"item.completed","item":{"type":"agent_message","text":"done"}}` + "\n" +
			`{"type":"turn.completed","usage":{"input_tokens":5000,"cached_input_tokens":4096,"output_tokens":77}}` + "\n",
			"", llm.Usage{InputTokens: 5000, OutputTokens: 77, CacheReadTokens: 4096}},
		{Codex, `{"type":"item.completed","item":{"type":"agent_message","text":"done"}}` + "\n" + `{"type":"turn.completed"}` + "\n", "", llm.Usage{}},
	} {
		p := &parser{kind: tc.kind, log: discard()}
		p.read(t.Context(), strings.NewReader(tc.stream))
		res, err := p.result()
		if err != nil || res.Usage != tc.want || res.Provider != tc.kind || res.Model != tc.model {
			t.Errorf("%s: usage %+v by %q %q, %v; want %+v by %q %q", tc.kind, res.Usage, res.Provider, res.Model, err, tc.want, tc.kind, tc.model)
		}
	}
}
