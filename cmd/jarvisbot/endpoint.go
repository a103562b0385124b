package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/jarvisbot/jarvisbot"
)

// httpSite is one of serve's listeners (the MCP surface, the dashboard,
// Telegram's webhook) as the config sets it.
type httpSite struct {
	what    string // "the dashboard", for the log
	setting string // where the owner changes its address
	addr    string
	// explicit: the owner set the address (config or environment), so
	// one that cannot be bound stops serve; the default one costs only
	// this listener.
	explicit bool
	ln       net.Listener // already bound, instead of addr
	wrapped  bool         // ln carries TLS already (tls was called)
	cert     string
	key      string
	path     string // appended to the URL the log shows
}

// endpoint is a started HTTP endpoint.
type endpoint struct {
	http *http.Server
	url  string // scheme://host:port + path
}

// bind binds the site's address. An address the owner set that cannot
// be bound is an error naming the address, where it is set and what to
// do. The default address taken (another jarvisbot or another program has
// it) gives a nil listener and the reason, for the caller to warn and tell
// /readyz: the owner's chats come first.
func (site httpSite) bind() (ln net.Listener, unbound string, err error) {
	if site.ln != nil {
		return site.ln, "", nil
	}
	ln, err = net.Listen("tcp", site.addr)
	switch {
	case err == nil:
		return ln, "", nil
	case site.explicit:
		return nil, "", jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s cannot listen on %s, the address %s sets: %w; stop what holds it, or set %s to a free address (or off)",
			site.what, site.addr, site.setting, err, site.setting)
	}
	reason := err.Error()
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		reason = op.Err.Error() // "bind: address already in use"
	}
	return nil, fmt.Sprintf("%s is not served: its default address %s is taken (%s); set %s to a free address, or off", site.what, site.addr, reason, site.setting), nil
}

// tls puts TLS on ln when the site has a certificate; one that cannot be
// loaded is an error.
func (site httpSite) tls(ln net.Listener) (net.Listener, string, error) {
	switch {
	case site.cert == "":
		return ln, "http", nil
	case site.wrapped:
		return ln, "https", nil
	}
	cert, err := tls.LoadX509KeyPair(site.cert, site.key)
	if err != nil {
		_ = ln.Close() // nothing was served on it
		return nil, "", jarvisbot.Errorf(jarvisbot.EINVALID, "%s: its TLS certificate %s cannot be loaded: %w; check the certificate and key files the config names", site.what, site.cert, err)
	}
	return tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}), "https", nil
}

// serveHTTP listens at the site's address and serves h. A nil endpoint
// with a nil error is a default address that was taken: warned of, and
// the reason returned for /readyz.
func serveHTTP(site httpSite, h http.Handler, log *slog.Logger) (*endpoint, string, error) {
	ln, unbound, err := site.bind()
	if err != nil {
		return nil, "", err
	}
	if ln == nil {
		log.Warn(unbound)
		return nil, unbound, nil
	}
	ln, scheme, err := site.tls(ln)
	if err != nil {
		return nil, "", err
	}
	// No write timeout: agent_chat may wait minutes for its turn, and the
	// activity board streams.
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	ep := &endpoint{http: srv, url: scheme + "://" + ln.Addr().String() + site.path}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error(site.what+" stopped", "err", err)
		}
	}()
	log.Info(site.what+" listening", "url", ep.url)
	return ep, "", nil
}

// close stops the endpoint: requests in flight get until ctx ends, then
// what is left is cut.
func (e *endpoint) close(ctx context.Context) {
	if err := e.http.Shutdown(ctx); err != nil {
		_ = e.http.Close() // the deadline passed
	}
}
