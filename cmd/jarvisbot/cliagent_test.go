package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
)

// npmBin is the bin folder of the npm test cache, where scripts/test.sh
// installs the pinned CLIs; the test skips when the pinned one is missing.
func npmBin(t *testing.T, pkg, bin string) string {
	t.Helper()
	dir := os.Getenv("JARVIS_NPM_CACHE")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Skipf("no user cache directory: %v", err)
		}
		dir = filepath.Join(cache, "jarvisbot-test", "npm")
	}
	pins, err := os.ReadFile(filepath.Join("..", "..", "agents", "cliagent", "testdata", "clis.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var want string
	for line := range strings.Lines(string(pins)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), pkg+"@"); ok {
			want = v
		}
	}
	var meta struct{ Version string }
	data, err := os.ReadFile(filepath.Join(dir, "node_modules", pkg, "package.json"))
	if err == nil {
		err = json.Unmarshal(data, &meta)
	}
	if err != nil || meta.Version != want {
		t.Skipf("%s@%s is not installed in %s (found %q, %v): scripts/test.sh installs it", pkg, want, dir, meta.Version, err)
	}
	return filepath.Join(dir, "node_modules", ".bin")
}

// TestClaudeCodeAgentCallsJarvisbotToolsM5: an agent whose provider is
// claude-code answers in Telegram through the real claude CLI, which the
// scripted model server drives; the CLI calls an ask-tier jarvisbot tool
// through the turn's session MCP server, the owner's buttons decide it as
// for any agent, and the CLI's final answer is posted.
func TestClaudeCodeAgentCallsJarvisbotToolsM5(t *testing.T) {
	bin := npmBin(t, "@anthropic-ai/claude-code", "claude")
	e, f, tg := ownerOnTelegram(t)
	e.vars["PATH"] = bin + string(os.PathListSeparator) + os.Getenv("PATH")
	e.mustJarvis(t, "", "cli", "add", "echo")
	if code, out, errOut := e.jarvis(t, "", "agents", "edit", "default", "--provider", "claude-code"); code != 0 || !strings.Contains(out, "provider: claude-code") {
		t.Fatalf("agents edit --provider: %s %s", out, errOut)
	}
	if _, out, _ := e.jarvis(t, "", "agents", "show", "default"); !strings.Contains(out, "claude-code 2.1") {
		t.Errorf("agents show does not name the CLI found:\n%s", out)
	}
	echo := "mcp__jb__" + llm.WireName("cli:echo")
	f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: echo, Input: `{"args":["through","the","cli"]}`}},
		Usage: fakellm.Usage{InputTokens: 100, OutputTokens: 10, CacheReadTokens: 1000, CacheCreationTokens: 200}},
		fakellm.Step{Text: "The echo said: through the cli.", Usage: fakellm.Usage{InputTokens: 50, OutputTokens: 5, CacheReadTokens: 2000}})
	out, stop := startServe(t, e)
	defer stop()
	waitOutput(t, out, "jarvisbot is ready")
	tg.SendText(42, 42, "run echo through the cli")
	msgID, approve := approvalPrompt(t, tg, "the approval prompt for the CLI's call", "cli:echo")
	tg.Press(42, 42, msgID, approve)
	waitSent(t, tg, "the CLI's answer in the chat", func(s []faketelegram.Sent) bool { return hasText(s, 42, "The echo said: through the cli.") })
	delegateUsage(t, e, "claude-code", 150, 15, 3000, 200)
	reqs := f.Requests()
	if len(reqs) < 2 || !strings.Contains(strings.Join(reqs[len(reqs)-1].Messages[len(reqs[len(reqs)-1].Messages)-1].ToolResults, ""), "through the cli") {
		t.Errorf("the tool's output did not reach the CLI's model: %+v", reqs)
	}
	// Its own shell, file and web tools are off: only jarvisbot's reach the
	// model (Claude Code may add its placeholder for deferred MCP tools,
	// which loads nothing but the session server's).
	own := map[string]bool{"Bash": true, "Read": true, "Write": true, "Edit": true, "MultiEdit": true, "Glob": true, "Grep": true,
		"WebFetch": true, "WebSearch": true, "Task": true, "NotebookEdit": true, "TodoWrite": true, "KillShell": true, "BashOutput": true}
	for _, r := range reqs {
		for _, name := range r.Tools {
			if own[name] {
				t.Errorf("the CLI offered its model a tool of its own: %s", name)
			}
		}
	}
}

// TestCodexAgentCallsJarvisbotToolsM5: the same for an agent on the real
// codex CLI, which speaks the Responses API to the scripted model server
// (its provider set in CODEX_HOME, passed through to the CLI).
func TestCodexAgentCallsJarvisbotToolsM5(t *testing.T) {
	bin := npmBin(t, "@openai/codex", "codex")
	e, f, tg := ownerOnTelegram(t)
	e.vars["PATH"] = bin + string(os.PathListSeparator) + os.Getenv("PATH")
	home := t.TempDir()
	config := `model = "gpt-test"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "` + f.OpenAIURL() + `"
env_key = "OPENAI_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
`
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	e.vars["CODEX_HOME"] = home
	e.vars["OPENAI_API_KEY"] = "test-key" // an OPENAI_* setting: passed through to the CLI
	e.mustJarvis(t, "", "cli", "add", "echo")
	e.mustJarvis(t, "", "agents", "edit", "default", "--provider", "codex")
	echo := "mcp__jb__" + llm.WireName("cli:echo")
	f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: echo, Input: `{"args":["via","codex"]}`}},
		Usage: fakellm.Usage{InputTokens: 100, OutputTokens: 10, CacheReadTokens: 1000}},
		fakellm.Step{Text: "Codex echoed: via codex.", Usage: fakellm.Usage{InputTokens: 50, OutputTokens: 5, CacheReadTokens: 2000}})
	out, stop := startServe(t, e)
	defer stop()
	waitOutput(t, out, "jarvisbot is ready")
	tg.SendText(42, 42, "run echo via codex")
	msgID, approve := approvalPrompt(t, tg, "the approval prompt for codex's call", "cli:echo")
	tg.Press(42, 42, msgID, approve)
	waitSent(t, tg, "codex's answer in the chat", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Codex echoed: via codex.") })
	// The Responses API's input_tokens include the cached ones.
	delegateUsage(t, e, "codex", 3150, 15, 3000, 0)
}

// delegateUsage checks the usage record of a delegate's turn: one call for the
// CLI's whole turn, with the tokens its model reported over the turn.
func delegateUsage(t *testing.T, e *testEnv, cli string, in, out, cacheRead, cacheWrite int) {
	t.Helper()
	var rep struct {
		Rows []struct {
			Key              string
			Calls            int
			InputTokens      int `json:"input_tokens"`
			OutputTokens     int `json:"output_tokens"`
			CacheReadTokens  int `json:"cache_read_tokens"`
			CacheWriteTokens int `json:"cache_write_tokens"`
		}
	}
	raw := e.mustJarvis(t, "", "usage", "--by", "model", "--json")
	if err := json.Unmarshal([]byte(raw), &rep); err != nil {
		t.Fatalf("usage --json: %v\n%s", err, raw)
	}
	if len(rep.Rows) != 1 || !strings.HasPrefix(rep.Rows[0].Key, cli) {
		t.Fatalf("usage by model: %s; want one row for %s", raw, cli)
	}
	r := rep.Rows[0]
	if r.Calls != 1 || r.InputTokens != in || r.OutputTokens != out || r.CacheReadTokens != cacheRead || r.CacheWriteTokens != cacheWrite {
		t.Errorf("%s's turn recorded as %+v; want 1 call with input %d, output %d, cache read %d, cache write %d", cli, r, in, out, cacheRead, cacheWrite)
	}
}

// approvalPrompt waits for the approval prompt in the owner's Telegram
// chat 42 whose text holds about and returns its message id and the data
// of its Approve button.
func approvalPrompt(t *testing.T, tg *faketelegram.Server, what, about string) (int, string) {
	t.Helper()
	var msgID int
	var approve string
	waitSent(t, tg, what, func(s []faketelegram.Sent) bool {
		for _, m := range s {
			if m.ChatID == 42 && strings.Contains(m.Text, "Approval needed") && strings.Contains(m.Text, about) && len(m.Buttons) > 0 {
				msgID, approve = m.MessageID, m.Buttons[0][0].Data
				return true
			}
		}
		return false
	})
	return msgID, approve
}
