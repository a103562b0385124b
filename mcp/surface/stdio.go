package surface

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/jarvisbot/jarvisbot"
)

// connectTimeout bounds one attempt to reach the running service: a
// client that launched `jarvisbot mcp serve` waits on its initialize.
const connectTimeout = 10 * time.Second

// ServeStdio is `jarvisbot mcp serve`: an MCP server on in and out for
// clients that launch a command, forwarding tools/list and tools/call to
// the running service's endpoint at url with key. When the service cannot
// be reached (or refuses the key) it still answers initialize and lists
// one tool, status, whose call says what is wrong and what to do; each
// call of it tries again, and once the service answers the bridge lists
// its tools (notifying the client that the list changed). It returns when
// in ends or ctx is done.
func ServeStdio(ctx context.Context, in io.Reader, out io.Writer, url, key string, opt Options) error {
	if opt.Version == "" {
		opt.Version = "dev"
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	br := &bridge{url: url, key: key, opt: opt, log: log}
	br.local = server.NewMCPServer("jarvisbot", opt.Version,
		server.WithToolCapabilities(true),
		server.WithInstructions(instructions),
	)
	if err := br.connect(ctx); err != nil {
		br.offline(err)
	}
	defer br.close()
	stdio := server.NewStdioServer(br.local)
	stdio.SetErrorLogger(slog.NewLogLogger(log.Handler(), slog.LevelWarn))
	err := stdio.Listen(ctx, in, out)
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return fmt.Errorf("mcp serve: the stdio connection failed: %w", err)
}

// bridge holds the connection to the running service, made again when
// the service comes back.
type bridge struct {
	url, key string
	opt      Options
	log      *slog.Logger
	local    *server.MCPServer

	mu sync.Mutex
	up *client.Client  // nil while the service cannot be reached
	st *statusRecorder // up's HTTP statuses
}

// connect reaches the service, lists its tools and offers them.
func (br *bridge) connect(ctx context.Context) error {
	if strings.TrimSpace(br.key) == "" {
		return jarvisbot.Errorf(jarvisbot.EFORBIDDEN, "no app key: JARVIS_APP_KEY is not set in this client's configuration for jarvisbot; the owner creates one with: jarvisbot apps add NAME (jarvisbot apps config NAME --client CLIENT prints the whole entry)")
	}
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	st := &statusRecorder{next: http.DefaultTransport}
	if br.opt.HTTPClient != nil && br.opt.HTTPClient.Transport != nil {
		st.next = br.opt.HTTPClient.Transport
	}
	tr, err := transport.NewStreamableHTTP(br.url,
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + br.key}),
		transport.WithHTTPBasicClient(&http.Client{Transport: st}))
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "the jarvisbot service's address %q is not a URL jarvisbot can reach: %w", br.url, err)
	}
	c := client.NewClient(tr, client.WithLegacyProtocolOnly())
	// Start, Initialize and ListTools take the attempt's deadline; the
	// client itself lives on after it.
	if err := c.Start(context.WithoutCancel(ctx)); err != nil {
		return br.explain(st, err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "jarvisbot-mcp-serve", Version: br.opt.Version}
	if _, err := c.Initialize(ctx, init); err != nil {
		_ = c.Close() // the error that matters is the initialize's
		return br.explain(st, err)
	}
	listed, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		_ = c.Close() // the error that matters is the listing's
		return br.explain(st, err)
	}
	tools := make([]server.ServerTool, 0, len(listed.Tools))
	for _, t := range listed.Tools {
		tools = append(tools, server.ServerTool{Tool: t, Handler: br.forward})
	}
	br.mu.Lock()
	old := br.up
	br.up, br.st = c, st
	br.mu.Unlock()
	if old != nil {
		_ = old.Close() // replaced; its session is gone anyway
	}
	br.local.SetTools(tools...)
	br.log.Info("mcp serve: connected to the jarvisbot service", "url", br.url, "tools", len(tools))
	return nil
}

// offline offers the one tool that says why the service cannot be used.
func (br *bridge) offline(why error) {
	br.log.Warn("mcp serve: the jarvisbot service cannot be used", "url", br.url, "err", why)
	br.local.SetTools(server.ServerTool{
		Tool: mcp.NewTool("status",
			mcp.WithDescription("Whether the jarvisbot service can be reached; while it cannot, says why and how to fix it. Call it again once it runs: jarvisbot's tools then appear."),
			mcp.WithReadOnlyHintAnnotation(true), mcp.WithDestructiveHintAnnotation(false), mcp.WithOpenWorldHintAnnotation(false)),
		Handler: br.retry,
	})
}

// retry is the offline status tool: connect again, and answer with the
// service's status when that works.
func (br *bridge) retry(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := br.connect(ctx); err != nil {
		br.log.Warn("mcp serve: the jarvisbot service still cannot be used", "url", br.url, "err", err)
		return errorResult(err), nil
	}
	return br.forward(ctx, req)
}

// forward passes a call to the service. A call that fails because the
// service went away is not repeated (it may have happened); the next call
// connects again.
func (br *bridge) forward(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return br.forwardOnce(ctx, req, false)
}

func (br *bridge) forwardOnce(ctx context.Context, req mcp.CallToolRequest, again bool) (*mcp.CallToolResult, error) {
	br.mu.Lock()
	c, st := br.up, br.st
	br.mu.Unlock()
	if c == nil {
		if err := br.connect(ctx); err != nil {
			return errorResult(err), nil
		}
		br.mu.Lock()
		c, st = br.up, br.st
		br.mu.Unlock()
	}
	up := mcp.CallToolRequest{}
	up.Params.Name = req.Params.Name
	up.Params.Arguments = req.Params.Arguments
	res, err := c.CallTool(ctx, up)
	if err == nil {
		return res, nil
	}
	var broken *transport.Error
	if !errors.As(err, &broken) {
		// The service answered with a protocol error: the connection is fine.
		return errorResult(jarvisbot.Errorf(jarvisbot.EINVALID, "%s: the jarvisbot service refused the call: %w", req.Params.Name, err)), nil
	}
	if ctx.Err() != nil {
		return errorResult(jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s: the client gave up waiting: %w", req.Params.Name, ctx.Err())), nil
	}
	if code, _ := st.last(); code == http.StatusTooManyRequests {
		// The service is there and the session fine; it asks to wait.
		return errorResult(br.explain(st, err)), nil
	}
	// The connection is broken (service stopped, key revoked, session
	// lost): drop it so that the next call connects again.
	br.mu.Lock()
	if br.up == c {
		br.up = nil
	}
	br.mu.Unlock()
	_ = c.Close() // broken already
	if errors.Is(err, transport.ErrSessionTerminated) && !again {
		// The service restarted and forgot the session before running
		// anything: connecting again and repeating is safe.
		if cerr := br.connect(ctx); cerr == nil {
			return br.forwardOnce(ctx, req, true)
		}
	}
	if code, _ := st.last(); code != 0 || errors.Is(err, transport.ErrAuthorizationRequired) {
		return errorResult(br.explain(st, err)), nil
	}
	return errorResult(jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s: the jarvisbot service at %s stopped answering (%v); check that jarvisbot serve still runs, then call again", req.Params.Name, br.url, err)), nil
}

func (br *bridge) close() {
	br.mu.Lock()
	c := br.up
	br.up = nil
	br.mu.Unlock()
	if c != nil {
		_ = c.Close() // the bridge is ending; nothing left to tell
	}
}

// explain turns a failure to reach the service into what to do about it.
func (br *bridge) explain(st *statusRecorder, err error) error {
	code, retry := st.last()
	switch {
	case code == http.StatusUnauthorized || errors.Is(err, transport.ErrAuthorizationRequired):
		return refusedKeyErr(br.url)
	case code == http.StatusTooManyRequests:
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "the jarvisbot service at %s says this app asked too often; call again in %s seconds", br.url, retry)
	case code != 0:
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "the jarvisbot service at %s answered HTTP %d (%v); check that the URL is its MCP endpoint (mcp_server.listen, path %s)", br.url, code, err, Path)
	}
	return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "the jarvisbot service is not running at %s (%v); start it with: jarvisbot serve (it serves MCP at mcp_server.listen, by default http://127.0.0.1:8765/mcp), then call this tool again", br.url, err)
}

func refusedKeyErr(url string) error {
	return jarvisbot.Errorf(jarvisbot.EFORBIDDEN, "the jarvisbot service at %s refused the key in JARVIS_APP_KEY: it is unknown or was revoked; the owner issues a new one with: jarvisbot apps add NAME", url)
}

// statusRecorder remembers the service's last HTTP answer when it was a
// failure (0 after a success or none), so that a refusal is told apart
// from an absence. With calls in parallel it is the latest of them: it
// only picks the words of an error.
type statusRecorder struct {
	next http.RoundTripper

	mu    sync.Mutex
	code  int
	retry string
}

func (s *statusRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.next.RoundTrip(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.code, s.retry = 0, ""
	if err == nil && resp.StatusCode >= 400 {
		s.code, s.retry = resp.StatusCode, resp.Header.Get("Retry-After")
	}
	return resp, err
}

func (s *statusRecorder) last() (int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.code, s.retry
}
