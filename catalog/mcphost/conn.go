package mcphost

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/procgroup"
)

// DialOptions tune how a server is reached.
type DialOptions struct {
	// InitTimeout bounds starting the server, initialize and listing its
	// tools; 0 means DefaultInitTimeout.
	InitTimeout time.Duration
	// Lookup resolves ${NAME} references in env, arguments, headers and URL.
	Lookup Lookup
	// HTTPClient is used for HTTP servers; nil means a default client.
	HTTPClient *http.Client
	// Version is jarvisbot's version, sent in initialize.
	Version string
	// PingTimeout bounds a ping: the health check of an HTTP server, and
	// the check after a call passed its deadline, which tells a hung
	// server from a slow tool; 0 means DefaultPingTimeout.
	PingTimeout time.Duration
}

// Conn is one live session with an MCP server.
type Conn struct {
	srv          Server
	c            *client.Client
	proc         *process // stdio only
	rec          *recorder
	Transport    string // what was spoken in the end (SSE after a fallback)
	Info         mcp.Implementation
	Instructions string
	pingTimeout  time.Duration
	secrets      *redactor // what jarvisbot handed the server; errors never quote it

	lists   atomic.Int64 // numbers this session's tools/list requests
	mu      sync.Mutex
	tools   []catalog.SnapshotTool
	leftOut []catalog.LeftOut

	changed  chan struct{} // a list_changed arrived (capacity 1)
	done     chan struct{}
	doneOnce sync.Once
	doneErr  error
}

// Dial starts or reaches the server, initializes within the deadline and
// lists all its tools. The error says why a server that does not answer
// did not: the command that was not found, the exit status and last stderr
// lines, the HTTP status, TLS, or the timeout.
func Dial(ctx context.Context, srv Server, opt DialOptions) (*Conn, error) {
	if err := srv.Check(); err != nil {
		return nil, err
	}
	limit := opt.InitTimeout
	if limit <= 0 {
		limit = DefaultInitTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cn := &Conn{srv: srv, changed: make(chan struct{}, 1), done: make(chan struct{}), Transport: srv.Transport,
		pingTimeout: opt.PingTimeout, secrets: &redactor{}}
	if err := cn.dial(ctx, opt, limit); err != nil {
		return nil, cn.secrets.err(err)
	}
	return cn, nil
}

// dial opens the session and runs the handshake, falling back to SSE.
func (cn *Conn) dial(ctx context.Context, opt DialOptions, limit time.Duration) error {
	srv := cn.srv
	if err := cn.open(ctx, opt); err != nil {
		return err
	}
	if err := cn.handshake(ctx, opt, limit); err != nil {
		if srv.Transport == StreamableHTTP && cn.legacySSE(err) {
			cn.c.Close()
			cn.Transport = SSE
			if err2 := cn.open(ctx, opt); err2 == nil {
				if err2 = cn.handshake(ctx, opt, limit); err2 == nil {
					return nil
				}
				cn.Close()
			}
		} else {
			cn.Close()
		}
		return err
	}
	return nil
}

// open builds the transport and client.
func (cn *Conn) open(ctx context.Context, opt DialOptions) error {
	srv := &cn.srv
	var tr transport.Interface
	switch cn.Transport {
	case Stdio:
		env, err := childEnv(srv, opt.Lookup, cn.secrets)
		if err != nil {
			return err
		}
		argv, err := args(srv, opt.Lookup, cn.secrets)
		if err != nil {
			return err
		}
		// The child gets the values; cn.srv keeps the references.
		run := *srv
		run.Args = argv
		p, err := start(&run, env, func(p *process) {
			cn.markDown(jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "server %s %s", srv.Name, p.exitText()))
		})
		if err != nil {
			return err
		}
		cn.proc = p
		tr = transport.NewIO(p.stdout, p.stdin, nil)
	case StreamableHTTP, SSE:
		h, err := headers(srv, opt.Lookup, cn.secrets)
		if err != nil {
			return err
		}
		addr, err := expand(srv.URL, fmt.Sprintf("server %s: URL", srv.Name), cn.secrets.recording(opt.Lookup))
		if err != nil {
			return err
		}
		base := srv.Client
		if base == nil {
			base = opt.HTTPClient
		}
		if base == nil {
			base = &http.Client{}
		}
		cn.rec = &recorder{next: base.Transport, skipGET: cn.Transport == StreamableHTTP}
		hc := *base
		hc.Transport = cn.rec
		if cn.Transport == SSE {
			t, err := transport.NewSSE(addr, transport.WithHeaders(h), transport.WithHTTPClient(&hc))
			if err != nil {
				return jarvisbot.Errorf(jarvisbot.EINVALID, "server %s: %w", srv.Name, err)
			}
			t.SetConnectionLostHandler(func(err error) {
				cn.markDown(jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "server %s: the SSE stream ended: %w", srv.Name, err))
			})
			tr = t
		} else {
			t, err := transport.NewStreamableHTTP(addr, transport.WithHTTPHeaders(h), transport.WithHTTPBasicClient(&hc), transport.WithContinuousListening())
			if err != nil {
				return jarvisbot.Errorf(jarvisbot.EINVALID, "server %s: %w", srv.Name, err)
			}
			tr = t
		}
	}
	cn.c = client.NewClient(tr, client.WithLegacyProtocolOnly())
	cn.c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationToolsListChanged) {
			select {
			case cn.changed <- struct{}{}:
			default:
			}
		}
	})
	// The SSE transport's stream outlives Start, so it takes the session's
	// context rather than the dial deadline.
	startCtx := ctx
	if cn.Transport == SSE {
		startCtx = context.WithoutCancel(ctx)
	}
	if err := cn.c.Start(startCtx); err != nil {
		return cn.explain(ctx, "connect", err)
	}
	return nil
}

// handshake runs initialize and lists every page of tools.
func (cn *Conn) handshake(ctx context.Context, opt DialOptions, limit time.Duration) error {
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "jarvisbot", Version: opt.Version}
	res, err := within(ctx, func() (*mcp.InitializeResult, error) { return cn.c.Initialize(ctx, req) })
	if err != nil {
		return cn.explain(ctx, fmt.Sprintf("initialize (deadline %s)", limit), err)
	}
	cn.Info, cn.Instructions = res.ServerInfo, res.Instructions
	if err := cn.relist(ctx); err != nil {
		return cn.explain(ctx, "tools/list", err)
	}
	return nil
}

// legacySSE reports whether a streamable-HTTP failure means the server
// speaks only the older SSE transport.
func (cn *Conn) legacySSE(err error) bool {
	if errors.Is(err, transport.ErrLegacySSEServer) {
		return true
	}
	st, _ := cn.rec.last()
	return st == http.StatusNotFound || st == http.StatusMethodNotAllowed
}

// relist fetches every page of tools/list. A tool the catalog cannot hold
// (a bad name, a repeated one) is left out and remembered for a warning:
// the server's other tools still work.
func (cn *Conn) relist(ctx context.Context) error {
	listing, err := within(ctx, func() ([]json.RawMessage, error) { return cn.listTools(ctx) })
	if err != nil {
		return err
	}
	tools := make([]catalog.SnapshotTool, 0, len(listing))
	var left []catalog.LeftOut
	for _, raw := range listing {
		var st catalog.SnapshotTool
		if err := json.Unmarshal(raw, &st); err != nil {
			var named struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(raw, &named) // best effort: the name for the warning
			left = append(left, catalog.LeftOut{Server: cn.srv.Name, Tool: named.Name, Why: fmt.Sprintf("its listing cannot be read: %v", err)})
			continue
		}
		// Compact as the catalog keeps it, so that both hold one copy.
		if c, err := catalog.CompactSchema(st.InputSchema); err == nil && len(st.InputSchema) > 0 {
			st.InputSchema = c
		}
		tools = append(tools, st)
	}
	tools, bad := catalog.AcceptTools(cn.srv.Name, tools)
	left = append(left, bad...)
	cn.mu.Lock()
	cn.tools, cn.leftOut = tools, left
	cn.mu.Unlock()
	return nil
}

// listTools asks for every page of tools/list through the transport and
// returns each tool as the server sent it. It does not go through the
// client's ListTools, which keeps its own decoded copy of every tool (for
// mirroring parameters into HTTP headers, a feature of a protocol version
// jarvisbot does not speak: it connects WithLegacyProtocolOnly): with 200
// tools that copy is several times the size of the listing, held for as
// long as the session lives.
func (cn *Conn) listTools(ctx context.Context) ([]json.RawMessage, error) {
	var all []json.RawMessage
	seen := map[string]bool{}
	var params any // no params on the first page: a null would be refused
	for page := 1; ; page++ {
		res, err := cn.c.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{
			JSONRPC: mcp.JSONRPC_VERSION,
			// Not a number: the client numbers its own requests on this
			// transport, and answers are matched by id.
			ID:     mcp.NewRequestId(fmt.Sprintf("jarvisbot-tools-list-%d", cn.lists.Add(1))),
			Method: string(mcp.MethodToolsList),
			Params: params,
		})
		if err != nil {
			return nil, transport.NewError(err)
		}
		if res.Error != nil {
			return nil, res.Error.AsError()
		}
		var pg struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(res.Result, &pg); err != nil {
			return nil, fmt.Errorf("page %d of the tool list cannot be read: %w", page, err)
		}
		all = append(all, pg.Tools...)
		if pg.NextCursor == "" {
			return all, nil
		}
		if seen[pg.NextCursor] {
			return nil, fmt.Errorf("page %d of the tool list repeats the cursor %q of an earlier page", page, pg.NextCursor)
		}
		seen[pg.NextCursor] = true
		params = map[string]any{"cursor": pg.NextCursor}
	}
}

// Relist lists the tools again, after a list_changed.
func (cn *Conn) Relist(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, DefaultInitTimeout)
	defer cancel()
	if err := cn.relist(ctx); err != nil {
		return cn.secrets.err(cn.explain(ctx, "tools/list", err))
	}
	return nil
}

// Tools returns the server's tools as last listed.
func (cn *Conn) Tools() []catalog.SnapshotTool {
	cn.mu.Lock()
	defer cn.mu.Unlock()
	return cn.tools
}

// LeftOut returns the tools of the last listing that were left out, with
// why, for the caller to warn about.
func (cn *Conn) LeftOut() []catalog.LeftOut {
	cn.mu.Lock()
	defer cn.mu.Unlock()
	return cn.leftOut
}

// Server returns the settings the connection was made with.
func (cn *Conn) Server() Server { return cn.srv }

// Changed signals that the server announced a new tool list.
func (cn *Conn) Changed() <-chan struct{} { return cn.changed }

// Done is closed when the session ended; Err says why.
func (cn *Conn) Done() <-chan struct{} { return cn.done }

// Err is why the session ended, once Done is closed.
func (cn *Conn) Err() error {
	cn.mu.Lock()
	defer cn.mu.Unlock()
	return cn.doneErr
}

func (cn *Conn) markDown(err error) {
	err = cn.secrets.err(err)
	cn.doneOnce.Do(func() {
		cn.mu.Lock()
		cn.doneErr = err
		cn.mu.Unlock()
		close(cn.done)
	})
}

// pingLimit is the deadline of a health ping.
func (cn *Conn) pingLimit() time.Duration {
	if cn.pingTimeout > 0 {
		return cn.pingTimeout
	}
	return DefaultPingTimeout
}

// probe pings the server after a call passed its deadline. It runs on its
// own clock: whether the server is alive matters beyond the turn that
// asked.
func (cn *Conn) probe() error {
	ctx, cancel := context.WithTimeout(context.Background(), cn.pingLimit())
	defer cancel()
	_, err := within(ctx, func() (struct{}, error) { return struct{}{}, cn.c.Ping(ctx) })
	return err
}

// hung ends the session of a server that stopped answering (M3). A stdio
// server's process group is killed at once: a deaf server would not hear
// a polite request to stop, and whatever it started goes with it. An HTTP
// session's last requests (the DELETE on close) fail at once instead of
// waiting on the deaf server.
func (cn *Conn) hung(err error) {
	cn.markDown(err)
	if cn.proc != nil {
		procgroup.Signal(cn.proc.cmd, true)
	}
	if cn.rec != nil {
		cn.rec.hang()
	}
}

// Ping checks that the server still answers.
func (cn *Conn) Ping(ctx context.Context, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if err := cn.c.Ping(ctx); err != nil {
		err = cn.secrets.err(cn.explain(ctx, "ping", err))
		cn.markDown(err)
		return err
	}
	return nil
}

// Close ends the session and, for a stdio server, the child process.
func (cn *Conn) Close() error {
	cn.markDown(jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "server %s: the session was closed", cn.srv.Name))
	var err error
	if cn.c != nil {
		err = cn.c.Close()
	}
	if cn.proc != nil {
		cn.proc.stop()
	}
	return err
}

// explain turns a failure into a sentence about this server. It waits a
// moment for a stdio child that is exiting, so that its status and stderr
// are part of the message.
func (cn *Conn) explain(ctx context.Context, step string, err error) error {
	name := cn.srv.Name
	if je := (*jarvisbot.Error)(nil); errors.As(err, &je) && strings.Contains(je.Error(), "server "+name) {
		return err
	}
	if cn.proc != nil {
		if ctx.Err() == nil { // a broken pipe: the child is probably exiting
			select {
			case <-cn.proc.exited:
			case <-time.After(time.Second):
			}
		}
		select {
		case <-cn.proc.exited:
			return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "server %s %s during %s", name, cn.proc.exitText(), step)
		default:
		}
		if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			msg := fmt.Sprintf("server %s did not answer %s", name, step)
			if n, first := cn.proc.sniff.garbage(); n > 0 {
				first = cn.secrets.text(first) // before quoting, which would respell it
				msg += fmt.Sprintf("; it printed %d line(s) to stdout that are not MCP JSON-RPC, the first: %q (a stdio server must write only JSON-RPC to stdout, and logs to stderr)", n, first)
			} else if last := cn.proc.stderr.lines(3); last != "" {
				msg += "; its last stderr lines: " + last
			}
			return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s", msg)
		}
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "server %s: %s failed: %w", name, step, err)
	}
	// HTTP: the status and content type the server answered with say most.
	if cn.rec != nil {
		if st, ct := cn.rec.last(); st != 0 {
			switch {
			case (st == http.StatusUnauthorized || st == http.StatusForbidden) && (cn.srv.Plugin != "" || cn.srv.Client != nil):
				// The plugin's sign-in supplies the token: a header added
				// by hand would only hide that the sign-in needs renewing.
				plugin := cn.srv.Plugin
				if plugin == "" {
					plugin = "PLUGIN"
				}
				return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "server %s at %s answered %d %s: the server no longer accepts the sign-in of plugin %s; renew it with jarvisbot plugins signin %s", name, cn.srv.URL, st, http.StatusText(st), plugin, plugin)
			case st == http.StatusUnauthorized || st == http.StatusForbidden:
				return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "server %s at %s answered %d %s: it needs a sign-in or a token (add a header such as \"Authorization: Bearer ${TOKEN}\")", name, cn.srv.URL, st, http.StatusText(st))
			case st >= 400:
				return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "server %s at %s answered HTTP %d %s during %s", name, cn.srv.URL, st, http.StatusText(st), step)
			case strings.HasPrefix(ct, "text/html"):
				return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "server %s at %s answered with an HTML page (%d, %s), not MCP: is this the server's MCP endpoint (often ending in /mcp or /sse)?", name, cn.srv.URL, st, ct)
			}
		}
		var ue x509.UnknownAuthorityError
		var he x509.HostnameError
		var ce *tls.CertificateVerificationError
		switch {
		case errors.As(err, &ue), errors.As(err, &he), errors.As(err, &ce):
			return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "server %s at %s: TLS: %w", name, cn.srv.URL, err)
		}
		var oe *net.OpError
		if errors.As(err, &oe) {
			return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "server %s at %s cannot be reached: %w", name, cn.srv.URL, oe)
		}
		if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "server %s at %s did not answer %s", name, cn.srv.URL, step)
		}
	}
	return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "server %s: %s failed: %w", name, step, err)
}

// recorder remembers the status and content type of the last HTTP answer,
// for error messages.
type recorder struct {
	next http.RoundTripper
	// skipGET leaves out streamable HTTP's listening GET, which a server
	// may refuse (405) without anything being wrong.
	skipGET bool
	mu      sync.Mutex
	status  int
	ctype   string
	deaf    bool // the server stopped answering: send it nothing more
}

// errDeaf answers requests to a server that stopped answering.
var errDeaf = errors.New("the server stopped answering; this session is over")

func (r *recorder) hang() {
	r.mu.Lock()
	r.deaf = true
	r.mu.Unlock()
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	deaf := r.deaf
	r.mu.Unlock()
	if deaf {
		return nil, errDeaf
	}
	next := r.next
	if next == nil {
		next = http.DefaultTransport
	}
	resp, err := next.RoundTrip(req)
	if err == nil && !(r.skipGET && req.Method == http.MethodGet) {
		r.mu.Lock()
		r.status, r.ctype = resp.StatusCode, resp.Header.Get("Content-Type")
		r.mu.Unlock()
	}
	return resp, err
}

func (r *recorder) last() (int, string) {
	if r == nil {
		return 0, ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status, r.ctype
}
