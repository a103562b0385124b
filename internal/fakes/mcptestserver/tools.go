package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// maxBigBytes bounds the big tool so a typo in a test cannot exhaust memory.
const maxBigBytes = 64 << 20

// testServer holds the MCP server and what its fault-injecting tools and
// hooks need: where to report, and how to end the process.
type testServer struct {
	mcp    *server.MCPServer
	stderr io.Writer
	exit   exitFunc
	calls  atomic.Int64 // tools/call requests seen, for -crash-after
	frozen *gate        // closed while the freeze tool holds the server
}

func newTestServer(o options, stderr io.Writer, exit exitFunc) *testServer {
	t := &testServer{stderr: stderr, exit: exit, frozen: newGate()}

	hooks := &server.Hooks{}
	// A tools file may list a name twice; the registry holds one tool per
	// name, so the later listings are added to the last page by hand.
	var again []mcp.Tool
	if o.toolsFile != nil {
		seen := map[string]bool{}
		for _, st := range o.toolsFile {
			if seen[st.Tool.Name] {
				again = append(again, st.Tool)
			}
			seen[st.Tool.Name] = true
		}
	}
	if len(again) > 0 {
		hooks.AddAfterListTools(func(_ context.Context, _ any, _ *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
			if res.NextCursor == "" {
				res.Tools = append(res.Tools, again...)
			}
		})
	}
	if o.crashAfter > 0 {
		limit := int64(o.crashAfter)
		hooks.AddBeforeCallTool(func(context.Context, any, *mcp.CallToolRequest) {
			if t.calls.Add(1) == limit {
				fmt.Fprintf(t.stderr, "mcptest: crashing after %d calls\n", limit)
				t.exit(3)
			}
		})
	}
	if o.hangInitialize {
		// The mcp-go client opens with server/discover and falls back to
		// initialize, so both handshakes must hang for the client to hang.
		// Hooks run on the request's own goroutine: blocking one stalls that
		// answer and nothing else.
		hooks.AddBeforeInitialize(func(context.Context, any, *mcp.InitializeRequest) { select {} })
		hooks.AddBeforeDiscover(func(context.Context, any, *mcp.DiscoverRequest) { select {} })
	}

	opts := []server.ServerOption{
		// listChanged true: AddTool then broadcasts notifications/tools/list_changed.
		server.WithToolCapabilities(true),
		server.WithHooks(hooks),
	}
	if o.instructions != "" {
		opts = append(opts, server.WithInstructions(o.instructions))
	}
	if o.pageSize > 0 {
		opts = append(opts, server.WithPaginationLimit(o.pageSize))
	}
	t.mcp = server.NewMCPServer(o.name, "0.0.0-test", opts...)

	if o.toolsFile != nil {
		// AddTools keeps the last of a repeated name; the first listing is
		// the one a client sees first, so register in reverse.
		for i := len(o.toolsFile) - 1; i >= 0; i-- {
			t.mcp.AddTools(o.toolsFile[i])
		}
	} else {
		t.mcp.AddTools(t.builtinTools()...)
	}
	if o.key != "" {
		key := o.key
		t.mcp.AddTools(server.ServerTool{
			Tool: newTool("key", "Returns the key the server was started with (-key).", quiet()),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText(key), nil
			},
		})
	}
	if o.dsn != "" {
		dsn := o.dsn
		t.mcp.AddTools(server.ServerTool{
			Tool: newTool("dsn", "Returns the connection string the server was started with (-dsn).", quiet()),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText(dsn), nil
			},
		})
	}
	extra := make([]server.ServerTool, 0, o.extraTools)
	for i := 1; i <= o.extraTools; i++ {
		extra = append(extra, generatedTool(fmt.Sprintf("tool_%03d", i),
			fmt.Sprintf("Generated test tool number %d.", i)))
	}
	if len(extra) > 0 {
		t.mcp.AddTools(extra...)
	}
	return t
}

// readTools reads a tools/list array, such as a real server's list from a
// catalog snapshot, into tools that answer that they were called. The
// input schema is served byte for byte as the file has it.
func readTools(path string) ([]server.ServerTool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var list []struct {
		Name        string              `json:"name"`
		Title       string              `json:"title"`
		Description string              `json:"description"`
		InputSchema json.RawMessage     `json:"inputSchema"`
		Annotations *mcp.ToolAnnotation `json:"annotations"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("%s is not a JSON array of tools: %w", path, err)
	}
	tools := make([]server.ServerTool, 0, len(list))
	for _, l := range list {
		schema := l.InputSchema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		tool := mcp.NewToolWithRawSchema(l.Name, l.Description, schema)
		tool.Title = l.Title
		if l.Annotations != nil {
			tool.Annotations = *l.Annotations
		}
		name := l.Name
		tools = append(tools, server.ServerTool{Tool: tool, Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(name + " called"), nil
		}})
	}
	return tools, nil
}

// quiet marks a tool as harmless but not read-only; mcp-go's defaults
// (destructive, open-world) would make every test tool look dangerous.
func quiet() []mcp.ToolOption {
	return []mcp.ToolOption{
		mcp.WithReadOnlyHintAnnotation(false),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithOpenWorldHintAnnotation(false),
	}
}

func readOnly() []mcp.ToolOption {
	return []mcp.ToolOption{
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithOpenWorldHintAnnotation(false),
	}
}

func newTool(name, description string, annotations []mcp.ToolOption, params ...mcp.ToolOption) mcp.Tool {
	opts := append([]mcp.ToolOption{mcp.WithDescription(description)}, annotations...)
	return mcp.NewTool(name, append(opts, params...)...)
}

func (t *testServer) builtinTools() []server.ServerTool {
	return []server.ServerTool{
		{Tool: newTool("echo", "Returns its text argument unchanged.", readOnly(),
			mcp.WithString("text", mcp.Required(), mcp.Description("Text to return."))),
			Handler: echo},
		{Tool: newTool("add", "Returns the sum of a and b.", readOnly(),
			mcp.WithNumber("a", mcp.Required(), mcp.Description("First addend.")),
			mcp.WithNumber("b", mcp.Required(), mcp.Description("Second addend."))),
			Handler: add},
		{Tool: newTool("sleep", "Sleeps for ms milliseconds, stopping early when cancelled.", quiet(),
			mcp.WithInteger("ms", mcp.Required(), mcp.Description("Milliseconds to sleep."))),
			Handler: sleep},
		{Tool: newTool("hang", "Never returns and ignores cancellation, like a hung server.", quiet()),
			Handler: t.hang},
		{Tool: newTool("fail", "Always returns a tool error.", quiet()),
			Handler: fail},
		{Tool: newTool("crash", "Ends the server process with exit status 3.", quiet()),
			Handler: t.crash},
		{Tool: newTool("big", "Returns a text of the given number of 'x' characters.", quiet(),
			mcp.WithInteger("bytes", mcp.Required(), mcp.Description("Length of the text."))),
			Handler: big},
		{Tool: newTool("env", "Returns the value of an environment variable in the server process.", quiet(),
			mcp.WithString("name", mcp.Required(), mcp.Description("Variable name."))),
			Handler: env},
		{Tool: newTool("add_tool", "Registers a new tool, which makes the server announce a changed tool list.", quiet(),
			mcp.WithString("name", mcp.Required(), mcp.Description("Name of the tool to add."))),
			Handler: t.addTool},
		{Tool: newTool("delete_everything", "Pretends to delete everything; it deletes nothing.", nil,
			mcp.WithReadOnlyHintAnnotation(false),
			mcp.WithDestructiveHintAnnotation(true)),
			Handler: deleteEverything},
		{Tool: newTool("freeze", "Makes the whole server stop answering, ping included, like a deadlocked server.", quiet(),
			mcp.WithInteger("ms", mcp.Description("How long, in milliseconds; 0 or absent: until the process ends."))),
			Handler: t.freeze},
	}
}

// generatedTool is a tool that only answers that it was called; -extra-tools
// and add_tool make these to grow the list.
func generatedTool(name, description string) server.ServerTool {
	return server.ServerTool{
		Tool: newTool(name, description, quiet(),
			mcp.WithString("input", mcp.Description("Ignored."))),
		Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(name + " called"), nil
		},
	}
}

func echo(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	text, err := req.RequireString("text")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	return mcp.NewToolResultText(text), nil
}

func add(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := req.RequireFloat("a")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	b, err := req.RequireFloat("b")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	return mcp.NewToolResultText(strconv.FormatFloat(a+b, 'f', -1, 64)), nil
}

func sleep(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	ms, err := req.RequireInt("ms")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	timer := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer timer.Stop()
	select {
	case <-timer.C:
		return mcp.NewToolResultText(fmt.Sprintf("slept %d ms", ms)), nil
	case <-ctx.Done():
		return nil, fmt.Errorf("sleep of %d ms interrupted: %w", ms, ctx.Err())
	}
}

// hang says on stderr that the call arrived, so a test can wait for the
// call to be in flight instead of sleeping, and then never answers.
func (t *testServer) hang(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	fmt.Fprintln(t.stderr, "mcptest: hanging")
	select {} // deliberately deaf to ctx: this is the hung server
}

func fail(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultError("the test tool failed on purpose"), nil
}

func (t *testServer) crash(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	fmt.Fprintln(t.stderr, "mcptest: crash tool called")
	t.exit(3)
	return nil, fmt.Errorf("crash tool: process did not exit")
}

func big(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	n, err := req.RequireInt("bytes")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	if n < 0 || n > maxBigBytes {
		return mcp.NewToolResultError(fmt.Sprintf("bytes must be between 0 and %d, got %d", maxBigBytes, n)), nil
	}
	return mcp.NewToolResultText(strings.Repeat("x", n)), nil
}

func env(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name, err := req.RequireString("name")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	value, ok := os.LookupEnv(name)
	if !ok {
		value = "(unset)"
	}
	return mcp.NewToolResultText(value), nil
}

func (t *testServer) addTool(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name, err := req.RequireString("name")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	if name == "" {
		return mcp.NewToolResultError("add_tool needs a non-empty name"), nil
	}
	if t.mcp.GetTool(name) != nil {
		return mcp.NewToolResultError(fmt.Sprintf("a tool named %q already exists; choose another name", name)), nil
	}
	// AddTools notifies every initialized session, this one included,
	// because the tools capability was declared with listChanged.
	t.mcp.AddTools(generatedTool(name, "Tool added at run time by add_tool."))
	awaitListChanged(ctx)
	return mcp.NewToolResultText("added " + name), nil
}

func deleteEverything(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText("deleted nothing (test)"), nil
}

// freeze closes the gate every request passes (stdin on stdio, the handler
// over HTTP) and answers when it opens again.
func (t *testServer) freeze(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	ms := req.GetInt("ms", 0)
	if ms < 0 {
		return mcp.NewToolResultError("ms must not be negative"), nil
	}
	t.frozen.close(time.Duration(ms) * time.Millisecond)
	fmt.Fprintln(t.stderr, "mcptest: frozen")
	t.frozen.wait(context.Background())
	return mcp.NewToolResultText("thawed"), nil
}

// gate holds requests while the server plays dead.
type gate struct {
	mu   sync.Mutex
	open chan struct{} // closed while requests may pass
}

func newGate() *gate {
	g := &gate{open: make(chan struct{})}
	close(g.open)
	return g
}

// close stops requests for d, or for good when d is 0.
func (g *gate) close(d time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.open:
		g.open = make(chan struct{})
	default: // already closed: whichever freeze ends first opens it
	}
	if d > 0 {
		ch := g.open
		time.AfterFunc(d, func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			if g.open == ch {
				select {
				case <-ch:
				default:
					close(ch)
				}
			}
		})
	}
}

// wait returns when requests may pass again, or when ctx ends.
func (g *gate) wait(ctx context.Context) {
	g.mu.Lock()
	ch := g.open
	g.mu.Unlock()
	select {
	case <-ch:
	case <-ctx.Done():
	}
}

// held makes every HTTP request wait at the gate; one whose client gives
// up while it waits gets no answer, as from a hung server.
func (g *gate) held(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.wait(r.Context())
		if r.Context().Err() != nil {
			return
		}
		h.ServeHTTP(w, r)
	})
}
