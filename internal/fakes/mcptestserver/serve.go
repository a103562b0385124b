package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

const (
	// stdioGrace is how long in-flight calls may run after stdin closes or
	// a signal arrives. mcp-go's StdioServer.Listen waits for every handler,
	// and hang never returns, so without a bound the process would outlive
	// its client.
	stdioGrace = 500 * time.Millisecond
	// httpGrace bounds graceful HTTP shutdown for the same reason.
	httpGrace = time.Second
	// stdioWorkers lets several blocking calls (sleep, hang) run at once;
	// mcp-go's default of 5 would let five hangs stall every later call.
	stdioWorkers = 16
)

// serveStdio is server.ServeStdio with an end: it returns when ctx ends or
// stdin closes, after at most stdioGrace for in-flight calls.
func serveStdio(ctx context.Context, t *testServer, stdin io.Reader, stdout, stderr io.Writer) error {
	in := &watchedReader{r: stdin, closed: make(chan struct{}), gate: t.frozen}
	s := server.NewStdioServer(t.mcp)
	for _, opt := range []server.StdioOption{
		server.WithErrorLogger(log.New(stderr, "mcptest: ", 0)),
		server.WithWorkerPoolSize(stdioWorkers),
	} {
		opt(s)
	}

	done := make(chan error, 1)
	go func() { done <- s.Listen(ctx, in, stdout) }()
	select {
	case err := <-done:
		return ignoreCanceled(err)
	case <-ctx.Done():
	case <-in.closed:
	}
	select {
	case err := <-done:
		return ignoreCanceled(err)
	case <-time.After(stdioGrace):
		return nil // a handler is stuck (hang); the process exit ends it
	}
}

func ignoreCanceled(err error) error {
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// watchedReader closes closed once its reader fails, which for stdin means
// the client hung up. While the freeze tool holds the gate, what it read
// is held back: the server takes no more requests, ping included.
type watchedReader struct {
	r      io.Reader
	once   sync.Once
	closed chan struct{}
	gate   *gate
}

func (w *watchedReader) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if err != nil {
		w.once.Do(func() { close(w.closed) })
	}
	w.gate.wait(context.Background())
	return n, err
}

func serveStreamable(ctx context.Context, t *testServer, addr, key string, stdout io.Writer) error {
	ln, base, err := listen(addr)
	if err != nil {
		return err
	}
	httpSrv := &http.Server{ReadHeaderTimeout: 10 * time.Second}
	// Given the http.Server, Shutdown closes the sessions and then the server.
	h := server.NewStreamableHTTPServer(t.mcp, server.WithStreamableHTTPServer(httpSrv))
	mux := http.NewServeMux()
	mux.Handle("/mcp", watchNotifications(h))
	httpSrv.Handler = requireKey(key, t.frozen.held(mux))
	return serveHTTP(ctx, httpSrv, ln, base+"/mcp", stdout, h.Shutdown)
}

func serveSSE(ctx context.Context, t *testServer, addr, key string, stdout io.Writer) error {
	ln, base, err := listen(addr)
	if err != nil {
		return err
	}
	httpSrv := &http.Server{ReadHeaderTimeout: 10 * time.Second}
	// The base URL makes the endpoint event carry an absolute message URL.
	sse := server.NewSSEServer(t.mcp, server.WithBaseURL(base), server.WithHTTPServer(httpSrv))
	mux := http.NewServeMux()
	// A client that tries streamable HTTP first must see it is not there.
	mux.Handle("/mcp", http.NotFoundHandler())
	mux.Handle("/", sse)
	httpSrv.Handler = requireKey(key, t.frozen.held(mux))
	return serveHTTP(ctx, httpSrv, ln, base+"/sse", stdout, sse.Shutdown)
}

// requireKey answers 401 to a request that does not carry key in one of
// the ways services take one; an empty key lets everything through.
func requireKey(key string, next http.Handler) http.Handler {
	if key == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, pw, basic := r.BasicAuth()
		q := r.URL.Query()
		if r.Header.Get("Authorization") == "Bearer "+key || (basic && pw == key) ||
			r.Header.Get("X-Api-Key") == key || q.Get("api_key") == key || q.Get("token") == key {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcptest"`)
		http.Error(w, "mcptest: missing or wrong key", http.StatusUnauthorized)
	})
}

const welcomePage = "<html><body>Welcome</body></html>"

// serveHTML stands in for a URL that points at a web site, not an MCP server.
func serveHTML(ctx context.Context, addr string, stdout io.Writer) error {
	ln, base, err := listen(addr)
	if err != nil {
		return err
	}
	httpSrv := &http.Server{
		ReadHeaderTimeout: 10 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusOK)
			io.WriteString(w, welcomePage)
		}),
	}
	return serveHTTP(ctx, httpSrv, ln, base+"/mcp", stdout, httpSrv.Shutdown)
}

// listen opens addr and returns the listener with the http://HOST:PORT a
// client should dial; an unspecified host becomes loopback, which also
// satisfies mcp-go's DNS-rebinding check on the Host header.
func listen(addr string) (net.Listener, string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("listen on %s: %w", addr, err)
	}
	tcp := ln.Addr().(*net.TCPAddr)
	host := tcp.IP.String()
	if tcp.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	return ln, "http://" + net.JoinHostPort(host, fmt.Sprint(tcp.Port)), nil
}

// serveHTTP announces url on stdout, serves until ctx ends, then shuts down
// within httpGrace, forcing connections closed if that is not enough.
func serveHTTP(ctx context.Context, srv *http.Server, ln net.Listener, url string, stdout io.Writer,
	shutdown func(context.Context) error) error {
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if _, err := fmt.Fprintf(stdout, "MCPTEST_URL=%s\n", url); err != nil {
		srv.Close()
		return fmt.Errorf("announce URL on stdout: %w", err)
	}

	select {
	case err := <-served:
		return fmt.Errorf("serve HTTP on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), httpGrace)
	defer cancel()
	if err := shutdown(sctx); err != nil {
		srv.Close() // a handler is stuck (hang); drop its connection
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve HTTP on %s: %w", ln.Addr(), err)
	}
	return nil
}
