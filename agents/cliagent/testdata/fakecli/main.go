// Command fakecli behaves like `claude -p --output-format stream-json` or
// `codex exec --json`, by the name it is run as: it records its argv and
// environment in $HOME, reaches the session MCP server the way the real
// CLI would (the --mcp-config file; Codex's -c overrides with the token
// from bearer_token_env_var) and calls its echo tool, and prints the
// events of a turn. Messages steer it: "hang" starts a child and blocks,
// "crash" writes to stderr and exits 1.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

func main() {
	args := os.Args[1:]
	if len(args) == 1 && args[0] == "sleep-child" {
		os.WriteFile(filepath.Join(os.Getenv("HOME"), "child.pid"), []byte(strconv.Itoa(os.Getpid())), 0o600)
		time.Sleep(5 * time.Minute) // long past any test deadline, short if a bug leaves it behind
		return
	}
	codex := strings.HasPrefix(filepath.Base(os.Args[0]), "codex")
	// Run as claude-old it is a Claude Code from before
	// --system-prompt-snapshot: its --help does not list it, and it
	// refuses it as commander does.
	old := strings.Contains(filepath.Base(os.Args[0]), "old")
	if len(args) == 1 && args[0] == "--version" {
		switch {
		case codex:
			fmt.Println("codex-cli 0.171.0")
		case old:
			fmt.Println("1.0.128 (Claude Code)")
		default:
			fmt.Println("2.1.9 (Claude Code)")
		}
		return
	}
	if len(args) == 1 && args[0] == "--help" {
		fmt.Println("Usage: claude [options] [command] [prompt]")
		fmt.Println("  --system-prompt-file <file>           System prompt from a file")
		if !old {
			fmt.Println("  --system-prompt-snapshot <on|off>     Record the system prompt once per session")
		}
		return
	}
	record(args)
	for _, a := range args {
		if a == "--" {
			break
		}
		if old && a == "--system-prompt-snapshot" {
			fmt.Fprintln(os.Stderr, "error: unknown option '--system-prompt-snapshot'")
			os.Exit(1)
		}
	}
	prompt := ""
	for i, a := range args {
		if a == "--" && i+1 < len(args) {
			prompt = args[i+1]
		}
	}
	switch {
	case strings.Contains(prompt, "hang"):
		child := exec.Command(os.Args[0], "sleep-child")
		if err := child.Start(); err != nil {
			fail(err)
		}
		for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(os.Getenv("HOME"), "child.pid")); err == nil {
				break
			}
		}
		fmt.Fprintln(os.Stderr, "thinking very hard")
		time.Sleep(5 * time.Minute) // long past any test deadline, short if a bug leaves it behind
	case strings.Contains(prompt, "api error"):
		// The model refused: the CLI says so in its events, not on stderr.
		if codex {
			emit(map[string]any{"type": "thread.started", "thread_id": "thread-new"})
			emit(map[string]any{"type": "error", "message": "Reconnecting 1/5"})
			emit(map[string]any{"type": "turn.failed", "error": map[string]any{"message": "quota exceeded"}})
		} else {
			emit(map[string]any{"type": "system", "subtype": "init", "session_id": "session-new"})
			emit(map[string]any{"type": "result", "subtype": "success", "is_error": true, "result": "API Error: 400 nope", "session_id": "session-new"})
		}
		os.Exit(1)
	case strings.Contains(prompt, "reject an option"):
		// A CLI older than an option jarvisbot always gives.
		fmt.Fprintln(os.Stderr, "error: unknown option '--strict-mcp-config'")
		os.Exit(1)
	case strings.Contains(prompt, "crash"):
		fmt.Fprintln(os.Stderr, "starting")
		fmt.Fprintln(os.Stderr, "Error: invalid API key")
		os.Exit(1)
	}
	url, token := mcpFromArgs(args, codex)
	got := callEcho(url, token, prompt)
	if codex {
		thread := "thread-new"
		for i, a := range args {
			if a == "resume" && i+1 < len(args) {
				thread = args[i+1]
			}
		}
		emit(map[string]any{"type": "thread.started", "thread_id": thread})
		emit(map[string]any{"type": "turn.started"})
		emit(map[string]any{"type": "item.completed", "item": map[string]any{"id": "i0", "type": "mcp_tool_call", "server": "jb", "tool": "echo"}})
		emit(map[string]any{"type": "item.completed", "item": map[string]any{"id": "i1", "type": "agent_message", "text": "draft"}})
		emit(map[string]any{"type": "future.event", "x": 1})
		emit(map[string]any{"type": "item.completed", "item": map[string]any{"id": "i2", "type": "agent_message", "text": "answer: " + got}})
		emit(map[string]any{"type": "turn.completed", "usage": map[string]any{"input_tokens": 1}})
		return
	}
	session := "session-new"
	for i, a := range args {
		if a == "--resume" && i+1 < len(args) {
			session = args[i+1]
		}
	}
	emit(map[string]any{"type": "system", "subtype": "init", "session_id": session, "mcp_servers": []any{map[string]string{"name": "jb", "status": "connected"}}})
	emit(map[string]any{"type": "assistant", "session_id": session, "message": map[string]any{"content": []any{map[string]any{"type": "tool_use", "name": "mcp__jb__echo"}}}})
	emit(map[string]any{"type": "user", "session_id": session, "message": map[string]any{"content": []any{map[string]any{"type": "tool_result", "content": got}}}})
	emit(map[string]any{"type": "assistant", "session_id": session, "message": map[string]any{"content": []any{map[string]any{"type": "text", "text": "answer: " + got}}}})
	emit(map[string]any{"type": "result", "subtype": "success", "is_error": false, "result": "answer: " + got, "session_id": session})
}

// record keeps what the CLI was started with, for the test to check.
func record(args []string) {
	b, _ := json.Marshal(map[string]any{"args": args, "env": os.Environ()})
	n := 0
	for {
		p := filepath.Join(os.Getenv("HOME"), fmt.Sprintf("run-%d.json", n))
		if _, err := os.Stat(p); err != nil {
			os.WriteFile(p, b, 0o600)
			return
		}
		n++
	}
}

// mcpFromArgs finds the session server as the real CLI would.
func mcpFromArgs(args []string, codex bool) (url, token string) {
	if !codex {
		for i, a := range args {
			if a == "--mcp-config" && i+1 < len(args) {
				b, err := os.ReadFile(args[i+1])
				if err != nil {
					fail(err)
				}
				var cfg struct {
					MCPServers map[string]struct {
						URL     string            `json:"url"`
						Headers map[string]string `json:"headers"`
					} `json:"mcpServers"`
				}
				if err := json.Unmarshal(b, &cfg); err != nil {
					fail(err)
				}
				s := cfg.MCPServers["jb"]
				return s.URL, strings.TrimPrefix(s.Headers["Authorization"], "Bearer ")
			}
		}
		fail(fmt.Errorf("no --mcp-config"))
	}
	for i, a := range args {
		if a != "-c" || i+1 >= len(args) {
			continue
		}
		k, v, _ := strings.Cut(args[i+1], "=")
		uq, err := strconv.Unquote(v)
		if err != nil {
			uq = v
		}
		switch k {
		case "mcp_servers.jb.url":
			url = uq
		case "mcp_servers.jb.bearer_token_env_var":
			token = os.Getenv(uq)
		}
	}
	return url, token
}

func callEcho(url, token, text string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		fail(err)
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		fail(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "fakecli", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		fail(fmt.Errorf("MCP server: %w", err))
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "echo"
	req.Params.Arguments = map[string]any{"text": text}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		fail(err)
	}
	for _, part := range res.Content {
		if tc, ok := part.(mcp.TextContent); ok {
			return tc.Text
		}
	}
	return ""
}

func emit(ev map[string]any) {
	b, _ := json.Marshal(ev)
	fmt.Println(string(b))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "fakecli:", err)
	os.Exit(2)
}
