package surface

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/jarvisbot/jarvisbot"
)

// Options tune a Server. The zero value works.
type Options struct {
	// Logger gets one line per refused request and per failed call;
	// nil discards.
	Logger *slog.Logger
	// Version is what initialize reports as the server's version.
	Version string
	// AllowProxyHost lets requests arriving on a loopback address carry a
	// Host header that is not loopback, as from a reverse proxy on the
	// same machine that passes the public host name on. By default such
	// requests are refused (403), which stops DNS rebinding from a
	// browser; the bearer key is checked either way.
	AllowProxyHost bool
	// RetryAfter is the Retry-After of a rate-limited request when Keys
	// does not say how long (see RetryAfterError); 0 means a minute.
	RetryAfter time.Duration
	// HTTPClient's transport is what the stdio bridge (ServeStdio)
	// reaches the service with, e.g. to trust the certificate of a TLS
	// front; nil is Go's default.
	HTTPClient *http.Client
	// SessionIdle is how long an app's MCP session may sit unused before
	// its per-session state is dropped; 0 means an hour.
	SessionIdle time.Duration
}

// Server is jarvisbot's MCP surface for other apps: one mcp-go server with
// the 24 tools, each allowed to a scope. Safe for concurrent use.
type Server struct {
	b    Backend
	keys Keys
	opt  Options
	log  *slog.Logger
	// bt is the mcp-go server, its tools and its streamable HTTP
	// transport, made at the first request with a valid key (built):
	// serve turns the endpoint on by default and most owners' apps never
	// call, so until one does the process neither builds the tools'
	// schemas nor keeps the transport's sweeper of idle sessions.
	mu          sync.Mutex
	bt          *built
	closed      bool // Shutdown ran: nothing is built any more
	httpHandler http.Handler
}

type built struct {
	mcp   *server.MCPServer
	tools map[string]*tool
	http  *server.StreamableHTTPServer
}

// New builds the surface over b, with keys checking every HTTP request.
// Shutdown stops what it starts.
func New(b Backend, keys Keys, opt Options) *Server {
	if opt.Version == "" {
		opt.Version = "dev"
	}
	if opt.RetryAfter <= 0 {
		opt.RetryAfter = time.Minute
	}
	if opt.SessionIdle <= 0 {
		opt.SessionIdle = time.Hour
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{b: b, keys: keys, opt: opt, log: log}
	s.httpHandler = s.handleHTTP()
	return s
}

// built returns the mcp-go server, its tools and transport, making them
// at the first call; nil once Shutdown ran before anything needed them.
func (s *Server) built() *built {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bt == nil && !s.closed {
		s.bt = s.build()
	}
	return s.bt
}

// build makes the mcp-go server with the tools and its transport.
func (s *Server) build() *built {
	bt := &built{tools: map[string]*tool{}}
	bt.mcp = server.NewMCPServer("jarvisbot", s.opt.Version,
		server.WithToolCapabilities(false),
		server.WithInstructions(instructions),
		server.WithToolFilter(func(ctx context.Context, tools []mcp.Tool) []mcp.Tool { return visible(ctx, bt.tools, tools) }),
	)
	for _, t := range s.catalog() {
		bt.tools[t.def.Name] = t
		bt.mcp.AddTool(t.def, s.handler(t))
	}
	bt.http = s.transport(bt.mcp)
	return bt
}

const instructions = "jarvisbot is its owner's personal assistant. These tools show its agents, jobs, " +
	"schedule and approvals, and let this app talk to an agent or post a job without naming who does it. " +
	"Anything consequential waits for the owner's approval in chat: a result of waiting_approval means " +
	"the owner has been asked; check back with job_get or chat_history."

// MCPServer is the mcp-go server behind the surface, for transports other
// than Handler's (an in-process client in tests, say); nil once Shutdown
// ran on a surface nothing had called. Calls through it need a Caller in
// their context (ContextWithCaller).
func (s *Server) MCPServer() *server.MCPServer {
	if bt := s.built(); bt != nil {
		return bt.mcp
	}
	return nil
}

// visible is the tool filter: tools/list shows the caller only the tools
// its scope allows. mcp-go also runs the filter on tools/call, with just
// the tool called (its documented contract); there every tool passes, so
// that the handler refuses an out-of-scope call as a tool result the app's
// model can read ("needs a key with scope work") instead of a protocol
// error that says the tool does not exist. The handler's check is the
// boundary: every tool is registered through handler.
func visible(ctx context.Context, defs map[string]*tool, tools []mcp.Tool) []mcp.Tool {
	if len(tools) == 1 && len(defs) > 1 {
		return tools
	}
	c, _ := CallerFromContext(ctx)
	out := tools[:0:0]
	for _, t := range tools {
		if def, ok := defs[t.Name]; ok && c.Scope.Allows(def.scope) {
			out = append(out, t)
		}
	}
	return out
}

// handler wraps a tool's run with the scope check, the activity record and
// the conversion of every error (and panic) into a tool result, so that
// nothing a Backend does ends the app's session.
func (s *Server) handler(t *tool) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, _ error) {
		c, ok := CallerFromContext(ctx)
		if !ok {
			return errorResult(jarvisbot.Errorf(jarvisbot.EFORBIDDEN, "%s: this request carries no app key; send Authorization: Bearer KEY (jarvisbot apps add NAME prints one)", t.def.Name)), nil
		}
		began := time.Now()
		if !c.Scope.Allows(t.scope) {
			err := jarvisbot.Errorf(jarvisbot.EFORBIDDEN, "%s needs a key with scope %s; the key of app %s has scope %q (the owner can issue one with: jarvisbot apps add NAME --scope %s)", t.def.Name, t.scope, c.App, c.Scope, t.scope)
			s.record(ctx, c, t.def.Name, "refused: scope "+string(c.Scope), time.Since(began))
			s.log.Info("mcp call refused", "app", c.App, "tool", t.def.Name, "scope", c.Scope)
			return errorResult(err), nil
		}
		defer func() {
			if p := recover(); p != nil {
				err := jarvisbot.Errorf(jarvisbot.EINTERNAL, "%s failed inside jarvisbot (%v); the owner will find it in the log", t.def.Name, p)
				s.log.Error("mcp tool panicked", "app", c.App, "tool", t.def.Name, "panic", p)
				s.record(ctx, c, t.def.Name, "error: "+err.Error(), time.Since(began))
				res = errorResult(err)
			}
		}()
		v, err := t.run(ctx, c, req)
		took := time.Since(began)
		if err != nil {
			s.record(ctx, c, t.def.Name, "error: "+err.Error(), took)
			if jarvisbot.ErrorCode(err) == jarvisbot.EINTERNAL {
				s.log.Warn("mcp call failed", "app", c.App, "tool", t.def.Name, "err", err)
			}
			return errorResult(err), nil
		}
		s.record(ctx, c, t.def.Name, outcome(v), took)
		return okResult(v), nil
	}
}

// record puts the call on the activity board. It runs on a context that
// outlives the app's request: a call the app gave up on still happened.
func (s *Server) record(ctx context.Context, c Caller, tool, outcome string, took time.Duration) {
	s.b.Record(context.WithoutCancel(ctx), c.App, tool, outcome, took)
}

// outcome is what the activity board shows for a call that returned v.
func outcome(v any) string {
	switch r := v.(type) {
	case ChatResult:
		return r.Status
	case Job:
		return "job " + r.ID + " " + r.State
	}
	return "ok"
}

// okResult is v as JSON, in the text a model reads and as structured
// content. v is an object (every tool wraps its lists), as structured
// content must be.
func okResult(v any) *mcp.CallToolResult {
	b, err := json.Marshal(v)
	if err != nil {
		return errorResult(jarvisbot.Errorf(jarvisbot.EINTERNAL, "the answer cannot be written as JSON: %w", err))
	}
	return mcp.NewToolResultStructured(json.RawMessage(b), string(b))
}

// errorResult is err as a tool error: the message to read, and its code
// for a program.
func errorResult(err error) *mcp.CallToolResult {
	code := jarvisbot.ErrorCode(err)
	res := mcp.NewToolResultStructured(map[string]string{"error": err.Error(), "code": string(code)},
		fmt.Sprintf("%s (%s)", err.Error(), code))
	res.IsError = true
	return res
}
