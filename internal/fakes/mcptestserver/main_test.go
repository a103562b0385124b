package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/testwait"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// serverBin is the mcptestserver binary built once by TestMain, so the tests
// exercise the same artefact (and command line) other packages' tests run.
var serverBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcptestserver")
	if err != nil {
		fmt.Fprintln(os.Stderr, "create build dir:", err)
		os.Exit(1)
	}
	serverBin = filepath.Join(dir, "mcptestserver")
	build := exec.Command("go", "build", "-o", serverBin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build mcptestserver:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// waitTimeout bounds every wait in these tests; nothing should take long.
const waitTimeout = 5 * time.Second

// era selects the protocol generation the mcp-go client negotiates: by
// default it probes server/discover (2026-07-28); legacy forces initialize.
type era struct {
	name string
	opts []client.ClientOption
}

var eras = []era{
	{"modern", nil},
	{"legacy", []client.ClientOption{client.WithLegacyProtocolOnly()}},
}

// eventually polls cond until it holds; after waitTimeout it fails the
// test, naming what it waited for and what cond last saw.
func eventually(t *testing.T, what string, cond func() (ok bool, saw any)) {
	t.Helper()
	testwait.For(t, waitTimeout, what, cond)
}

// onStderr is a condition for eventually: stderr holds want.
func onStderr(stderr fmt.Stringer, want string) func() (bool, any) {
	return func() (bool, any) {
		got := stderr.String()
		return strings.Contains(got, want), "stderr: " + got
	}
}

func timeout(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), waitTimeout)
	t.Cleanup(cancel)
	return ctx
}

// stdioServer is a started (not yet initialized) client on a child server.
type stdioServer struct {
	c      *client.Client
	stderr *testwait.Buffer
	closed bool
}

// close ends the client and returns the child's exit error, if any.
func (s *stdioServer) close() error {
	s.closed = true
	return s.c.Close()
}

func startStdio(t *testing.T, env []string, opts []client.ClientOption, args ...string) *stdioServer {
	t.Helper()
	s := &stdioServer{stderr: &testwait.Buffer{}}
	tr := transport.NewStdioWithOptions(serverBin, env, args, transport.WithCommandStderrWriter(s.stderr))
	s.c = client.NewClient(tr, opts...)
	// The transport ties the child to this context; it must outlive the test
	// body so Close, not a kill, ends the child.
	if err := s.c.Start(context.Background()); err != nil {
		t.Fatalf("start %s: %v", serverBin, err)
	}
	t.Cleanup(func() {
		if !s.closed {
			s.c.Close()
		}
	})
	return s
}

func initialize(ctx context.Context, c *client.Client) (*mcp.InitializeResult, error) {
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "mcptestserver-test", Version: "1"}
	return c.Initialize(ctx, req)
}

func mustInitialize(t *testing.T, c *client.Client) *mcp.InitializeResult {
	t.Helper()
	res, err := initialize(timeout(t), c)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return res
}

func callTool(ctx context.Context, c *client.Client, name string, args map[string]any) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	return c.CallTool(ctx, req)
}

// callText calls a tool that must succeed and returns its text.
func callText(t *testing.T, c *client.Client, name string, args map[string]any) string {
	t.Helper()
	res, err := callTool(timeout(t), c, name, args)
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("call %s: tool error %q", name, resultText(res))
	}
	return resultText(res)
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func toolsByName(t *testing.T, c *client.Client) map[string]mcp.Tool {
	t.Helper()
	res, err := c.ListTools(timeout(t), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("list tools: %v", err)
	}
	tools := make(map[string]mcp.Tool, len(res.Tools))
	for _, tool := range res.Tools {
		if _, dup := tools[tool.Name]; dup {
			t.Errorf("tool %q listed twice", tool.Name)
		}
		tools[tool.Name] = tool
	}
	return tools
}

var builtinNames = []string{"echo", "add", "sleep", "hang", "fail", "crash", "big", "env", "add_tool", "delete_everything", "freeze"}

func TestStdioServesToolsInBothProtocolEras(t *testing.T) {
	t.Parallel()
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			s := startStdio(t, nil, e.opts, "-name", "unit", "-instructions", "be nice")
			res := mustInitialize(t, s.c)
			t.Logf("negotiated protocol %s", res.ProtocolVersion)
			if res.ServerInfo.Name != "unit" || res.Instructions != "be nice" {
				t.Errorf("initialize: server %q instructions %q, want unit / be nice", res.ServerInfo.Name, res.Instructions)
			}
			if res.Capabilities.Tools == nil || !res.Capabilities.Tools.ListChanged {
				t.Errorf("tools capability %+v, want listChanged", res.Capabilities.Tools)
			}

			tools := toolsByName(t, s.c)
			if len(tools) != len(builtinNames) {
				t.Errorf("got %d tools, want %d", len(tools), len(builtinNames))
			}
			for _, name := range builtinNames {
				if _, ok := tools[name]; !ok {
					t.Errorf("tool %q missing", name)
				}
			}
			if h := tools["echo"].Annotations.ReadOnlyHint; h == nil || !*h {
				t.Errorf("echo readOnlyHint %v, want true", h)
			}
			del := tools["delete_everything"].Annotations
			if del.DestructiveHint == nil || !*del.DestructiveHint || del.ReadOnlyHint == nil || *del.ReadOnlyHint {
				t.Errorf("delete_everything annotations %+v, want destructive and not read-only", del)
			}

			if got := callText(t, s.c, "echo", map[string]any{"text": "hello"}); got != "hello" {
				t.Errorf("echo = %q, want hello", got)
			}
		})
	}
}

func TestToolResults(t *testing.T) {
	t.Parallel()
	s := startStdio(t, []string{"MCPTEST_VISIBLE=yes"}, nil)
	mustInitialize(t, s.c)

	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"add", map[string]any{"a": 2, "b": 3}, "5"},
		{"add", map[string]any{"a": 0.5, "b": 0.25}, "0.75"},
		{"sleep", map[string]any{"ms": 1}, "slept 1 ms"},
		{"env", map[string]any{"name": "MCPTEST_VISIBLE"}, "yes"},
		{"env", map[string]any{"name": "MCPTEST_NOT_SET_ANYWHERE"}, "(unset)"},
		{"delete_everything", nil, "deleted nothing (test)"},
	}
	for _, tt := range tests {
		if got := callText(t, s.c, tt.tool, tt.args); got != tt.want {
			t.Errorf("%s %v = %q, want %q", tt.tool, tt.args, got, tt.want)
		}
	}

	if got := callText(t, s.c, "big", map[string]any{"bytes": 100000}); got != strings.Repeat("x", 100000) {
		t.Errorf("big: got %d bytes, want 100000 'x'", len(got))
	}

	res, err := callTool(timeout(t), s.c, "fail", nil)
	if err != nil {
		t.Fatalf("call fail: %v", err)
	}
	if !res.IsError || resultText(res) != "the test tool failed on purpose" {
		t.Errorf("fail = isError %v %q, want a tool error", res.IsError, resultText(res))
	}
}

func TestCancelledCallsLeaveServerUsable(t *testing.T) {
	t.Parallel()
	s := startStdio(t, nil, nil)
	mustInitialize(t, s.c)

	for _, tool := range []string{"hang", "sleep"} {
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		start := time.Now()
		_, err := callTool(ctx, s.c, tool, map[string]any{"ms": 60000})
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s past its deadline: err %v, want deadline exceeded", tool, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s returned after %v, want about the 100ms deadline", tool, d)
		}
	}
	if got := callText(t, s.c, "echo", map[string]any{"text": "still here"}); got != "still here" {
		t.Errorf("echo after cancelled calls = %q", got)
	}
	// hang said it had the call, which is how other tests know a hung call
	// is in flight.
	eventually(t, "hang to say it has the call", onStderr(s.stderr, "mcptest: hanging"))

	// A hung handler must not keep the child alive once its stdin closes:
	// mcp-go's client would otherwise wait seconds before killing it.
	start := time.Now()
	if err := s.close(); err != nil {
		t.Errorf("close with a hung call: %v", err)
	}
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("close took %v, want under the client's 2s grace", d)
	}
}

func TestPaginationReturnsEveryTool(t *testing.T) {
	t.Parallel()
	s := startStdio(t, nil, nil, "-page-size", "2", "-extra-tools", "5")
	mustInitialize(t, s.c)

	page, err := s.c.ListToolsByPage(timeout(t), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("first page: %v", err)
	}
	if len(page.Tools) != 2 || page.NextCursor == "" {
		t.Errorf("first page: %d tools, cursor %q; want 2 and a cursor", len(page.Tools), page.NextCursor)
	}

	tools := toolsByName(t, s.c)
	if want := len(builtinNames) + 5; len(tools) != want {
		t.Errorf("ListTools over pages: %d tools, want %d", len(tools), want)
	}
	for i := 1; i <= 5; i++ {
		name := fmt.Sprintf("tool_%03d", i)
		tool, ok := tools[name]
		if !ok {
			t.Errorf("tool %q missing", name)
			continue
		}
		if want := fmt.Sprintf("Generated test tool number %d.", i); tool.Description != want {
			t.Errorf("%s description %q, want %q", name, tool.Description, want)
		}
		if tool.InputSchema.Type != "object" {
			t.Errorf("%s schema type %q, want object", name, tool.InputSchema.Type)
		}
	}
	if got := callText(t, s.c, "tool_003", nil); got != "tool_003 called" {
		t.Errorf("tool_003 = %q", got)
	}
}

func TestToolsFileReplacesTheBuiltinTools(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "tools.json")
	list := `[
	  {"name": "list_issues", "title": "List issues", "description": "List the issues of a repository.",
	   "inputSchema": {"type": "object", "properties": {"repo": {"type": "string", "description": "owner/name"}}, "required": ["repo"]},
	   "annotations": {"readOnlyHint": true}},
	  {"name": "bare", "description": "No schema given."}
	]`
	if err := os.WriteFile(file, []byte(list), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startStdio(t, nil, nil, "-tools-file", file)
	mustInitialize(t, s.c)
	tools := toolsByName(t, s.c)
	if len(tools) != 2 {
		t.Fatalf("%d tools, want the file's 2 in place of the built-in ones", len(tools))
	}
	li := tools["list_issues"]
	if li.Title != "List issues" || li.Description != "List the issues of a repository." {
		t.Errorf("list_issues title %q, description %q", li.Title, li.Description)
	}
	if li.Annotations.ReadOnlyHint == nil || !*li.Annotations.ReadOnlyHint {
		t.Errorf("list_issues annotations %+v, want readOnlyHint true", li.Annotations)
	}
	if got := li.InputSchema; got.Type != "object" || len(got.Required) != 1 || got.Required[0] != "repo" || got.Properties["repo"] == nil {
		t.Errorf("list_issues schema %+v, want the file's: object, repo required", got)
	}
	if got := tools["bare"].InputSchema.Type; got != "object" {
		t.Errorf("bare schema type %q, want object for a tool given without one", got)
	}
	if got := callText(t, s.c, "bare", nil); got != "bare called" {
		t.Errorf("bare = %q", got)
	}
}

// checkAddToolNotifies calls add_tool and expects list_changed, then the
// new tool in the list. On a 2026-07-28 connection notifications are opt-in,
// so it first opens subscriptions/listen and waits for the server's
// acknowledgement, without which the notification could race the stream.
func checkAddToolNotifies(t *testing.T, c *client.Client) {
	t.Helper()
	changed := make(chan struct{}, 10)
	acked := make(chan struct{}, 1)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		switch n.Method {
		case string(mcp.MethodNotificationToolsListChanged):
			changed <- struct{}{}
		case mcp.MethodNotificationSubscriptionsAcknowledged:
			acked <- struct{}{}
		}
	})
	if mcp.IsModernProtocol(c.ProtocolVersion()) {
		stop, err := c.ListenAsync(t.Context(), mcp.SubscriptionFilter{ToolsListChanged: true},
			func(err error) { t.Errorf("subscriptions/listen: %v", err) })
		if err != nil {
			t.Fatalf("subscriptions/listen: %v", err)
		}
		defer stop()
		select {
		case <-acked:
		case <-time.After(waitTimeout):
			t.Fatal("subscriptions/listen was not acknowledged")
		}
	}
	if got := callText(t, c, "add_tool", map[string]any{"name": "late_tool"}); got != "added late_tool" {
		t.Errorf("add_tool = %q", got)
	}
	select {
	case <-changed:
	case <-time.After(waitTimeout):
		t.Fatal("no notifications/tools/list_changed after add_tool")
	}
	if _, ok := toolsByName(t, c)["late_tool"]; !ok {
		t.Error("late_tool not listed after add_tool")
	}
	if got := callText(t, c, "late_tool", nil); got != "late_tool called" {
		t.Errorf("late_tool = %q", got)
	}
}

func TestAddToolSendsListChanged(t *testing.T) {
	t.Parallel()
	for _, e := range eras {
		t.Run("stdio/"+e.name, func(t *testing.T) {
			t.Parallel()
			s := startStdio(t, nil, e.opts)
			mustInitialize(t, s.c)
			checkAddToolNotifies(t, s.c)
		})
	}
	for _, e := range eras {
		t.Run("http/"+e.name, func(t *testing.T) {
			t.Parallel()
			url := startHTTP(t, "-http", "127.0.0.1:0")
			c := httpClient(t, url, e.opts)
			mustInitialize(t, c)
			checkAddToolNotifies(t, c)
		})
	}
	// With a GET stream (legacy only) the notification may arrive on either
	// stream; the client must see it once either way.
	t.Run("http/listening", func(t *testing.T) {
		t.Parallel()
		url := startHTTP(t, "-http", "127.0.0.1:0")
		c := httpClient(t, url, nil, transport.WithContinuousListening())
		mustInitialize(t, c)
		checkAddToolNotifies(t, c)
	})
}

func TestGarbageBeforeServingIsSkipped(t *testing.T) {
	t.Parallel()
	s := startStdio(t, nil, nil, "-garbage")
	mustInitialize(t, s.c)
	if got := callText(t, s.c, "echo", map[string]any{"text": "ok"}); got != "ok" {
		t.Errorf("echo = %q", got)
	}
}

func TestExitAtStartReportsOnStderr(t *testing.T) {
	t.Parallel()
	s := startStdio(t, nil, nil, "-exit-at-start", "7")
	if _, err := initialize(timeout(t), s.c); err == nil {
		t.Fatal("initialize succeeded against a server that exited")
	}
	const want = "mcptest: fatal: cannot open database /nonexistent"
	eventually(t, "the fatal message on stderr", onStderr(s.stderr, want))

	var exit *exec.ExitError
	if err := s.close(); !errors.As(err, &exit) || exit.ExitCode() != 7 {
		t.Errorf("close: %v, want exit status 7", err)
	}
}

func TestCrashToolEndsProcess(t *testing.T) {
	t.Parallel()
	s := startStdio(t, nil, nil)
	mustInitialize(t, s.c)
	if _, err := callTool(timeout(t), s.c, "crash", nil); err == nil {
		t.Fatal("crash call succeeded")
	}
	eventually(t, "the crash message on stderr", onStderr(s.stderr, "mcptest: crash tool called"))
	var exit *exec.ExitError
	if err := s.close(); !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Errorf("close: %v, want exit status 3", err)
	}
}

func TestCrashAfterNthCall(t *testing.T) {
	t.Parallel()
	s := startStdio(t, nil, nil, "-crash-after", "2")
	mustInitialize(t, s.c)
	callText(t, s.c, "echo", map[string]any{"text": "one"})
	if _, err := callTool(timeout(t), s.c, "echo", map[string]any{"text": "two"}); err == nil {
		t.Fatal("second call succeeded, want the server to crash")
	}
	eventually(t, "the crash message on stderr", onStderr(s.stderr, "mcptest: crashing after 2 calls"))
	var exit *exec.ExitError
	if err := s.close(); !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Errorf("close: %v, want exit status 3", err)
	}
}

func TestHangInitializeNeverAnswers(t *testing.T) {
	t.Parallel()
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			s := startStdio(t, nil, e.opts, "-hang-initialize")
			ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
			defer cancel()
			start := time.Now()
			if _, err := initialize(ctx, s.c); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("initialize: %v, want deadline exceeded", err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("initialize gave up after %v, want about 200ms", d)
			}
		})
	}
}

// startHTTP runs the server with args, returns the URL it announces and
// stops it (SIGTERM, expecting a clean exit) when the test ends.
func startHTTP(t *testing.T, args ...string) string {
	t.Helper()
	cmd, url := runHTTP(t, args...)
	t.Cleanup(func() { stopHTTP(t, cmd) })
	return url
}

func runHTTP(t *testing.T, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(serverBin, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = &testwait.Buffer{}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", serverBin, err)
	}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if url, ok := strings.CutPrefix(sc.Text(), "MCPTEST_URL="); ok {
				lines <- url
			}
		}
		close(lines)
	}()
	select {
	case url, ok := <-lines:
		if !ok {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("server exited without announcing its URL; stderr: %s", cmd.Stderr)
		}
		return cmd, url
	case <-time.After(waitTimeout):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("server did not announce its URL")
		return nil, ""
	}
}

func stopHTTP(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Errorf("SIGTERM: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("server after SIGTERM: %v, want exit status 0; stderr: %s", err, cmd.Stderr)
		}
	case <-time.After(waitTimeout):
		cmd.Process.Kill()
		<-done
		t.Error("server ignored SIGTERM")
	}
}

func httpClient(t *testing.T, url string, opts []client.ClientOption, topts ...transport.StreamableHTTPCOption) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url, topts...)
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, opts...)
	if err := c.Start(timeout(t)); err != nil {
		t.Fatalf("start client on %s: %v", url, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestStreamableHTTP(t *testing.T) {
	t.Parallel()
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			url := startHTTP(t, "-http", "127.0.0.1:0", "-name", "web", "-garbage")
			if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
				t.Errorf("announced URL %q, want http://127.0.0.1:PORT/mcp", url)
			}
			c := httpClient(t, url, e.opts)
			res := mustInitialize(t, c)
			t.Logf("negotiated protocol %s", res.ProtocolVersion)
			if res.ServerInfo.Name != "web" {
				t.Errorf("server name %q, want web", res.ServerInfo.Name)
			}
			if got := callText(t, c, "echo", map[string]any{"text": "over http"}); got != "over http" {
				t.Errorf("echo = %q", got)
			}
		})
	}
}

func TestSSE(t *testing.T) {
	t.Parallel()
	url := startHTTP(t, "-http", "127.0.0.1:0", "-sse")
	base, ok := strings.CutSuffix(url, "/sse")
	if !ok {
		t.Fatalf("announced URL %q, want …/sse", url)
	}

	resp, err := http.Post(base+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /mcp in SSE mode: status %d, want 404 or 405", resp.StatusCode)
	}

	c, err := client.NewSSEMCPClient(url)
	if err != nil {
		t.Fatal(err)
	}
	// The SSE stream lives as long as the Start context.
	if err := c.Start(t.Context()); err != nil {
		t.Fatalf("start SSE client: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	mustInitialize(t, c)
	if got := callText(t, c, "add", map[string]any{"a": 40, "b": 2}); got != "42" {
		t.Errorf("add over SSE = %q, want 42", got)
	}
}

// TestKeyIsRequiredOverHTTP: with -key, a request without the key gets
// 401, and each way of carrying it is let through; the key tool returns it.
func TestKeyIsRequiredOverHTTP(t *testing.T) {
	t.Parallel()
	const key = "k3y-for-the-test"
	url := startHTTP(t, "-http", "127.0.0.1:0", "-key", key)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	cases := []struct {
		name   string
		url    string
		header [2]string
		want   int
	}{
		{"none", url, [2]string{}, http.StatusUnauthorized},
		{"wrong bearer", url, [2]string{"Authorization", "Bearer nope"}, http.StatusUnauthorized},
		{"bearer", url, [2]string{"Authorization", "Bearer " + key}, http.StatusOK},
		{"basic", url, [2]string{"Authorization", "Basic " + base64.StdEncoding.EncodeToString([]byte("me:"+key))}, http.StatusOK},
		{"api key header", url, [2]string{"X-Api-Key", key}, http.StatusOK},
		{"api_key query", url + "?api_key=" + key, [2]string{}, http.StatusOK},
		{"token query", url + "?token=" + key, [2]string{}, http.StatusOK},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(http.MethodPost, c.url, strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if c.header[0] != "" {
			req.Header.Set(c.header[0], c.header[1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.want)
		}
	}
	c := httpClient(t, url, nil, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + key}))
	mustInitialize(t, c)
	if got := callText(t, c, "key", nil); got != key {
		t.Errorf("key tool = %q, want %q", got, key)
	}
}

func TestHTMLModeIsNotMCP(t *testing.T) {
	t.Parallel()
	url := startHTTP(t, "-http", "127.0.0.1:0", "-html")
	if !strings.HasSuffix(url, "/mcp") {
		t.Errorf("announced URL %q, want …/mcp", url)
	}
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") ||
		string(body) != "<html><body>Welcome</body></html>" {
		t.Errorf("got %d %q %q, want 200 text/html Welcome page", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}

	c := httpClient(t, url, nil)
	if _, err := initialize(timeout(t), c); err == nil {
		t.Error("initialize against an HTML page succeeded")
	}
}

func TestBadCommandLineExitsTwo(t *testing.T) {
	t.Parallel()
	notJSON := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(notJSON, []byte(`{"tools": "not an array"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"-sse"}, {"-html"}, {"-http", "127.0.0.1:0", "-sse", "-html"}, {"-no-such-flag"}, {"stray"},
		{"-tools-file", filepath.Join(t.TempDir(), "missing.json")}, {"-tools-file", notJSON}} {
		cmd := exec.Command(serverBin, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || stderr.Len() == 0 {
			t.Errorf("%v: %v, stderr %q; want exit status 2 with a message", args, err, stderr.String())
		}
	}
}

// TestToolsFileServesBadNames: a tools file's names reach the client as
// they are, however bad, and a repeated name is listed again, so clients
// can be tested against such servers.
func TestToolsFileServesBadNames(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("n", 200)
	file := filepath.Join(t.TempDir(), "tools.json")
	list := `[{"name": "good"}, {"name": ""}, {"name": "a/b"}, {"name": "bell\u0007"}, {"name": "` + long + `"}, {"name": "good", "description": "again"}]`
	if err := os.WriteFile(file, []byte(list), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, pageSize := range []string{"0", "2"} {
		s := startStdio(t, nil, nil, "-tools-file", file, "-page-size", pageSize)
		mustInitialize(t, s.c)
		res, err := s.c.ListTools(timeout(t), mcp.ListToolsRequest{})
		if err != nil {
			t.Fatalf("list tools: %v", err)
		}
		count := map[string]int{}
		for _, tool := range res.Tools {
			count[tool.Name]++
		}
		if count["good"] != 2 || count[""] != 1 || count["a/b"] != 1 || count["bell\a"] != 1 || count[long] != 1 || len(res.Tools) != 6 {
			t.Errorf("page size %s: listed %v", pageSize, count)
		}
		if got := callText(t, s.c, "a/b", nil); got != "a/b called" {
			t.Errorf("a/b = %q", got)
		}
	}
}

// TestFreezeStopsAnswering: freeze makes the server deaf to everything,
// ping included, on stdio and over HTTP, until it thaws.
func TestFreezeStopsAnswering(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, c *client.Client, stderr *testwait.Buffer) {
		t.Helper()
		answered := make(chan string, 1)
		go func() {
			res, err := callTool(context.Background(), c, "freeze", map[string]any{"ms": 1500})
			if err != nil {
				answered <- err.Error()
				return
			}
			answered <- resultText(res)
		}()
		eventually(t, "the freeze", onStderr(stderr, "mcptest: frozen"))
		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		defer cancel()
		if err := c.Ping(ctx); err == nil {
			t.Error("a frozen server answered a ping")
		}
		select {
		case got := <-answered:
			if got != "thawed" {
				t.Errorf("freeze answered %q, want thawed", got)
			}
		case <-time.After(waitTimeout):
			t.Fatal("the freeze never ended")
		}
		if err := c.Ping(timeout(t)); err != nil {
			t.Errorf("ping after the thaw: %v", err)
		}
	}
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		s := startStdio(t, nil, []client.ClientOption{client.WithLegacyProtocolOnly()})
		mustInitialize(t, s.c)
		check(t, s.c, s.stderr)
	})
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		cmd, url := runHTTP(t, "-http", "127.0.0.1:0")
		t.Cleanup(func() { stopHTTP(t, cmd) })
		c := httpClient(t, url, []client.ClientOption{client.WithLegacyProtocolOnly()})
		mustInitialize(t, c)
		check(t, c, cmd.Stderr.(*testwait.Buffer))
	})
}

func TestPrintEnvWritesItsValueToStderr(t *testing.T) {
	t.Parallel()
	s := startStdio(t, []string{"MCPTEST_SECRET=s3cr3t-value"}, nil, "-print-env", "MCPTEST_SECRET", "-exit-at-start", "1")
	if _, err := initialize(timeout(t), s.c); err == nil {
		t.Fatal("initialize succeeded against a server that exited")
	}
	eventually(t, "the variable on stderr", onStderr(s.stderr, "mcptest: MCPTEST_SECRET=s3cr3t-value"))
}
