package session

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/llm"
)

// call is what a turn's Call or Approve was given.
type call struct {
	name  string
	input string
}

// turn is a DelegateTurn whose Call and Approve remember what they got: the
// runtime behind them is the agents package's (its tests cover it); here
// only what crosses the MCP server matters.
func turn(approve func(tool string) (bool, error)) (agents.DelegateTurn, func() []call) {
	var mu sync.Mutex
	var got []call
	t := agents.DelegateTurn{
		Agent: "coder",
		Chat:  "console",
		Tools: []llm.Tool{
			{Name: "builtin__wiki", Description: "Read and write notes.", Schema: json.RawMessage(`{"type":"object","properties":{"action":{"type":"string"}}}`)},
			{Name: "mcp__github__get_me", Description: "Who am I on GitHub."},
		},
		Call: func(_ context.Context, wire string, input json.RawMessage) llm.ToolResult {
			mu.Lock()
			got = append(got, call{wire, string(input)})
			mu.Unlock()
			if wire == "mcp__github__get_me" {
				return llm.ToolResult{Content: "not signed in", IsError: true}
			}
			return llm.ToolResult{Content: wire + " ran"}
		},
		Approve: func(_ context.Context, tool string, input json.RawMessage) (bool, error) {
			mu.Lock()
			got = append(got, call{"approve:" + tool, string(input)})
			mu.Unlock()
			return approve(tool)
		},
	}
	return t, func() []call {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}

func start(t *testing.T, dt agents.DelegateTurn) *Server {
	t.Helper()
	s, err := Start(context.Background(), dt, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func connect(t *testing.T, url, token string) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "session-test", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c
}

func callTool(t *testing.T, c *client.Client, name string, args any) *mcp.CallToolResult {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

func text(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestSessionServesTheTurnsToolsM5: the server lists exactly the turn's
// tools, by their wire names with their schemas, and approve; a call
// reaches the turn's Call with its input and answers with its result.
func TestSessionServesTheTurnsToolsM5(t *testing.T) {
	dt, got := turn(func(string) (bool, error) { return true, nil })
	s := start(t, dt)
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") || len(s.Token()) < 40 {
		t.Fatalf("url %q token of %d characters", s.URL(), len(s.Token()))
	}
	c := connect(t, s.URL(), s.Token())
	list, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
		if b, _ := json.Marshal(tl); tl.Name == "builtin__wiki" && !strings.Contains(string(b), `"action"`) {
			t.Errorf("wiki tool as listed: %s", b)
		}
	}
	slices.Sort(names)
	if want := []string{"approve", "builtin__wiki", "mcp__github__get_me"}; !slices.Equal(names, want) {
		t.Fatalf("tools %q, want %q", names, want)
	}
	if r := callTool(t, c, "builtin__wiki", map[string]any{"action": "read", "name": "ideas"}); r.IsError || text(r) != "builtin__wiki ran" {
		t.Errorf("wiki result %+v", r)
	}
	if r := callTool(t, c, "mcp__github__get_me", nil); !r.IsError || text(r) != "not signed in" {
		t.Errorf("an error result crossed as %+v", r)
	}
	calls := got()
	if len(calls) != 2 || calls[0].name != "builtin__wiki" || calls[1].input != "{}" {
		t.Fatalf("calls %+v", calls)
	}
	var in map[string]any
	if json.Unmarshal([]byte(calls[0].input), &in) != nil || in["action"] != "read" || in["name"] != "ideas" {
		t.Errorf("input %s", calls[0].input)
	}
}

// TestSessionApproveAnswersClaudeCodesShapeM5: approve answers the JSON
// text Claude Code's permission prompt expects: allow with the input as
// given, or deny with a message; the turn's Approve decides.
func TestSessionApproveAnswersClaudeCodesShapeM5(t *testing.T) {
	dt, got := turn(func(tool string) (bool, error) { return tool == "Bash", nil })
	s := start(t, dt)
	c := connect(t, s.URL(), s.Token())
	input := map[string]any{"command": "ls -la"}
	for _, tc := range []struct {
		tool, behavior string
	}{{"Bash", "allow"}, {"Write", "deny"}} {
		r := callTool(t, c, ApproveTool, map[string]any{"tool_name": tc.tool, "input": input, "tool_use_id": "toolu_1"})
		var p struct {
			Behavior     string         `json:"behavior"`
			UpdatedInput map[string]any `json:"updatedInput"`
			Message      string         `json:"message"`
		}
		if err := json.Unmarshal([]byte(text(r)), &p); err != nil || r.IsError {
			t.Fatalf("approve %s answered %q: %v", tc.tool, text(r), err)
		}
		if p.Behavior != tc.behavior {
			t.Errorf("approve %s: %+v", tc.tool, p)
		}
		if tc.behavior == "allow" && p.UpdatedInput["command"] != "ls -la" {
			t.Errorf("allow without the input: %s", text(r))
		}
		if tc.behavior == "deny" && (p.Message == "" || p.UpdatedInput != nil) {
			t.Errorf("deny without a message: %s", text(r))
		}
	}
	calls := got()
	if len(calls) != 2 || calls[0].name != "approve:Bash" || !strings.Contains(calls[0].input, "ls -la") {
		t.Errorf("Approve was given %+v", calls)
	}
}

// TestSessionRefusesWithoutTheTokenM5: a request without this server's
// token, or with another, is 401 and reaches no tool.
func TestSessionRefusesWithoutTheTokenM5(t *testing.T) {
	dt, got := turn(func(string) (bool, error) { return true, nil })
	s := start(t, dt)
	other := start(t, dt)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"builtin__wiki","arguments":{}}}`
	for name, auth := range map[string]string{
		"missing":      "",
		"wrong":        "Bearer not-the-token",
		"other server": "Bearer " + other.Token(),
		"no scheme":    s.Token(),
	} {
		t.Run(name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, s.URL(), strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("status %d, want 401", resp.StatusCode)
			}
		})
	}
	if calls := got(); len(calls) != 0 {
		t.Errorf("a refused request reached the turn: %+v", calls)
	}
}

// TestSessionEndsWithTheTurnM5: after Close, or once the turn's context
// ends, the URL refuses connections, and the token with it.
func TestSessionEndsWithTheTurnM5(t *testing.T) {
	dt, _ := turn(func(string) (bool, error) { return true, nil })
	closed := start(t, dt)
	connect(t, closed.URL(), closed.Token())
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}
	if err := closed.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	ctx, end := context.WithCancel(context.Background())
	ended, err := Start(ctx, dt, Options{})
	if err != nil {
		t.Fatal(err)
	}
	connect(t, ended.URL(), ended.Token())
	end()
	for _, s := range []*Server{closed, ended} {
		deadline := time.Now().Add(10 * time.Second)
		for {
			req, _ := http.NewRequest(http.MethodPost, s.URL(), strings.NewReader(`{}`))
			req.Header.Set("Authorization", "Bearer "+s.Token())
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				break // refused: the server is gone
			}
			resp.Body.Close()
			if time.Now().After(deadline) {
				t.Fatalf("%s still answers (%d) after its turn ended", s.URL(), resp.StatusCode)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestSessionRefusesAToolNameMCPCannotCarryM5: a name the CLIs would
// reject, or one that would shadow approve, stops Start with a reason.
func TestSessionRefusesAToolNameMCPCannotCarryM5(t *testing.T) {
	for _, name := range []string{"approve", "has space", strings.Repeat("x", 65), ""} {
		dt, _ := turn(func(string) (bool, error) { return true, nil })
		dt.Tools = append(dt.Tools, llm.Tool{Name: name})
		if s, err := Start(context.Background(), dt, Options{}); err == nil {
			s.Close()
			t.Errorf("Start served a tool named %q", name)
		}
	}
}

// TestSessionCallStopsWithTheTurnM5: a call still running when the turn
// ends (one waiting for the owner's approval) sees its context end, so the
// runtime leaves the request pending instead of waiting on.
func TestSessionCallStopsWithTheTurnM5(t *testing.T) {
	dt, _ := turn(func(string) (bool, error) { return true, nil })
	entered, stopped := make(chan struct{}), make(chan error, 1)
	dt.Call = func(ctx context.Context, wire string, _ json.RawMessage) llm.ToolResult {
		close(entered)
		<-ctx.Done()
		stopped <- ctx.Err()
		return llm.ToolResult{Content: "cancelled", IsError: true}
	}
	ctx, end := context.WithCancel(context.Background())
	defer end()
	s, err := Start(ctx, dt, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := connect(t, s.URL(), s.Token())
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name = "builtin__wiki"
		c.CallTool(context.Background(), req) // cut off when the server ends
	}()
	<-entered
	end()
	select {
	case err := <-stopped:
		if err == nil {
			t.Error("the call's context ended without an error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call still runs 10s after its turn ended")
	}
}
