// Package session is the MCP server one delegate turn talks to (M5): a
// coding CLI that is an agent's model reaches jarvisbot's tools through it.
// Start serves the turn's tools (the ones the runtime offered, with the
// gate and the never-list applied) over streamable HTTP on loopback, each
// call going back to the turn's Call, so the runtime's checks, tiers,
// approvals and activity board apply; plus "approve", the permission
// prompt tool through which the CLI asks whether it may use one of its own
// tools. Every request needs the one-off bearer token made for this server;
// the server, and with it the token, ends with the turn (Close, or the
// context given to Start).
package session

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/jarvisbot/jarvisbot/agents"
)

// ApproveTool is the name of the permission prompt tool: Claude Code's
// --permission-prompt-tool points at mcp__SERVER__approve.
const ApproveTool = "approve"

// Path is where the server answers MCP.
const Path = "/mcp"

// Options configure a session server.
type Options struct {
	// Name is the server's name in the MCP handshake; default "jarvisbot".
	Name string
	// Log is told of refused requests; nil discards.
	Log *slog.Logger
}

// Server is one turn's MCP server.
type Server struct {
	url, token string
	http       *http.Server
	mcp        *server.StreamableHTTPServer
	served     chan struct{} // closed when Serve returned
	closeOnce  sync.Once
	stop       func() bool // stops the Close bound to Start's context
	cancel     context.CancelFunc
}

// toolName is what MCP clients and the CLIs accept as a tool's name; the
// runtime's wire names are made to satisfy it (llm.WireName). It is
// compiled at its first use: nothing runs at start-up for a turn that may
// never come.
var toolName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

// approveSchema is the input Claude Code gives its permission prompt tool.
const approveSchema = `{"type":"object","properties":{` +
	`"tool_name":{"type":"string","description":"the tool the CLI wants to use"},` +
	`"input":{"type":"object","description":"the input it wants to use it with"},` +
	`"tool_use_id":{"type":"string"}},"required":["tool_name","input"]}`

// Start serves t's tools and the approve tool on 127.0.0.1 on a free port
// until Close is called or ctx ends.
func Start(ctx context.Context, t agents.DelegateTurn, opt Options) (*Server, error) {
	if opt.Name == "" {
		opt.Name = "jarvisbot"
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	ms := server.NewMCPServer(opt.Name, "1", server.WithToolCapabilities(false))
	for _, tl := range t.Tools {
		if !toolName().MatchString(tl.Name) || tl.Name == ApproveTool {
			return nil, fmt.Errorf("starting the session MCP server of agent %s: the tool name %q cannot be served (names are 1 to 64 letters, digits, '_' or '-', and %q is the approval tool's)", t.Agent, tl.Name, ApproveTool)
		}
		schema := tl.Schema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		wire := tl.Name
		ms.AddTool(mcp.NewToolWithRawSchema(wire, tl.Description, schema), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			input, err := arguments(req)
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			res := t.Call(ctx, wire, input)
			if res.IsError {
				return mcp.NewToolResultError(res.Content), nil
			}
			return mcp.NewToolResultText(res.Content), nil
		})
	}
	ms.AddTool(mcp.NewToolWithRawSchema(ApproveTool,
		"Asks jarvisbot's owner whether you may use one of your own tools with this input. Answers JSON: behavior allow (with updatedInput) or deny (with message).",
		json.RawMessage(approveSchema)), approveHandler(t))

	token, err := newToken()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("starting the session MCP server of agent %s: listening on loopback: %w", t.Agent, err)
	}
	s := &Server{url: "http://" + ln.Addr().String() + Path, token: token, served: make(chan struct{})}
	s.mcp = server.NewStreamableHTTPServer(ms, server.WithEndpointPath(Path), server.WithStreamableHTTPLogger(opt.Log))
	mux := http.NewServeMux()
	mux.Handle(Path, s.authenticate(opt.Log, s.mcp))
	// Every request's context ends with the turn or with Close, whichever
	// comes first, so a call waiting for the owner stops with the turn (the
	// request stays pending and carries it, see agents.ErrAwaitingApproval).
	base, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	// No write timeout: a call may wait minutes for the owner's approval.
	s.http = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return base }}
	go func() {
		defer close(s.served)
		_ = s.http.Serve(ln) // it returns when Close closes it: ErrServerClosed
	}()
	s.stop = context.AfterFunc(ctx, func() { _ = s.Close() }) // the turn is over; nobody waits for the answer
	return s, nil
}

// URL is the server's MCP endpoint.
func (s *Server) URL() string { return s.url }

// Token is the bearer token every request must carry; it is valid only
// while the server runs. Hand it to the CLI in its environment, never on
// its command line.
func (s *Server) Token() string { return s.token }

// Close ends the server: open requests are cut, the port is closed, and the
// token is accepted nowhere. It may be called more than once.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.stop()
		s.cancel()
		err = s.http.Close()
		// The transport's sessions and sweeper go with the listener.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = s.mcp.Shutdown(ctx) // its sessions end with the listener anyway
		<-s.served
	})
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("closing the session MCP server at %s: %w", s.url, err)
	}
	return nil
}

// authenticate lets through only requests with this server's token.
func (s *Server) authenticate(log *slog.Logger, next http.Handler) http.Handler {
	want := []byte("Bearer " + s.token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(strings.TrimSpace(r.Header.Get("Authorization")))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			log.Info("session MCP request without this turn's token refused", "remote", r.RemoteAddr)
			w.Header().Set("WWW-Authenticate", `Bearer realm="jarvisbot session"`)
			http.Error(w, "this MCP server answers only the CLI of the turn it was started for, with its token in Authorization: Bearer TOKEN\n", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// newToken returns 256 random bits, URL-safe.
func newToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("making the session MCP server's token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// arguments returns a call's arguments as one JSON object.
func arguments(req mcp.CallToolRequest) (json.RawMessage, error) {
	args := req.GetRawArguments()
	if args == nil {
		return json.RawMessage(`{}`), nil
	}
	if raw, ok := args.(json.RawMessage); ok {
		return raw, nil
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("the arguments of %s could not be read: %w", req.Params.Name, err)
	}
	return b, nil
}

// permission is the answer Claude Code expects from its permission prompt
// tool, as JSON text.
type permission struct {
	Behavior     string          `json:"behavior"`
	UpdatedInput json.RawMessage `json:"updatedInput,omitempty"`
	Message      string          `json:"message,omitempty"`
}

func approveHandler(t agents.DelegateTurn) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Tool  string          `json:"tool_name"`
			Input json.RawMessage `json:"input"`
		}
		raw, err := arguments(req)
		if err == nil {
			err = json.Unmarshal(raw, &in)
		}
		var p permission
		switch {
		case err != nil || in.Tool == "":
			p = permission{Behavior: "deny", Message: "jarvisbot could not read which tool this request is for; it needs tool_name and input"}
		case t.Approve == nil:
			p = permission{Behavior: "deny", Message: "the owner has not let this agent use the CLI's own tools; use the tools jarvisbot offers"}
		default:
			if len(in.Input) == 0 || string(in.Input) == "null" {
				in.Input = json.RawMessage(`{}`)
			}
			ok, err := t.Approve(ctx, in.Tool, in.Input)
			switch {
			case err != nil:
				p = permission{Behavior: "deny", Message: fmt.Sprintf("jarvisbot could not get the owner's decision on %s: %v", in.Tool, err)}
			case ok:
				p = permission{Behavior: "allow", UpdatedInput: in.Input}
			default:
				p = permission{Behavior: "deny", Message: fmt.Sprintf("The owner did not allow %s this time. Do not retry it; say what you would have done instead.", in.Tool)}
			}
		}
		b, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText(string(b)), nil
	}
}
