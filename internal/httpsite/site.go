// Package httpsite binds, serves and stops serve's HTTP listeners (the
// dashboard W1, the MCP endpoint for apps M4, Telegram's webhook CH1) the
// same way: an address the owner set that cannot be bound stops serve,
// the default one taken costs only that listener (a warning, and a note
// on /readyz), a certificate that cannot be loaded is an error, and a
// stop gives requests in flight a few seconds (X4).
//
// A Site is what the config says of one listener; Open binds it before
// anything starts, Serve serves a handler on it, and the Endpoint it
// returns is closed at the end.
package httpsite

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

// Site is one of serve's listeners (the MCP surface, the dashboard,
// Telegram's webhook) as the config sets it.
type Site struct {
	What    string // "the dashboard", for the log
	Setting string // where the owner changes its address
	Addr    string
	// Explicit: the owner set the address (config or environment), so
	// one that cannot be bound stops serve; the default one costs only
	// this listener.
	Explicit bool
	Listener net.Listener // already bound, instead of Addr
	Wrapped  bool         // Listener carries TLS already (TLS was called)
	Cert     string
	Key      string
	Path     string // appended to the URL the log shows
}

// Endpoint is a started HTTP endpoint.
type Endpoint struct {
	HTTP *http.Server
	URL  string // scheme://host:port + path
}

// Bind binds the site's address. An address the owner set that cannot
// be bound is an error naming the address, where it is set and what to
// do. The default address taken (another jarvisbot or another program has
// it) gives a nil listener and the reason, for the caller to warn and tell
// /readyz: the owner's chats come first.
func (site Site) Bind() (ln net.Listener, unbound string, err error) {
	if site.Listener != nil {
		return site.Listener, "", nil
	}
	ln, err = net.Listen("tcp", site.Addr)
	switch {
	case err == nil:
		return ln, "", nil
	case site.Explicit:
		return nil, "", jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s cannot listen on %s, the address %s sets: %w; stop what holds it, or set %s to a free address (or off)",
			site.What, site.Addr, site.Setting, err, site.Setting)
	}
	reason := err.Error()
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		reason = op.Err.Error() // "bind: address already in use"
	}
	return nil, fmt.Sprintf("%s is not served: its default address %s is taken (%s); set %s to a free address, or off", site.What, site.Addr, reason, site.Setting), nil
}

// TLS puts TLS on ln when the site has a certificate; one that cannot be
// loaded is an error.
func (site Site) TLS(ln net.Listener) (net.Listener, string, error) {
	switch {
	case site.Cert == "":
		return ln, "http", nil
	case site.Wrapped:
		return ln, "https", nil
	}
	cert, err := tls.LoadX509KeyPair(site.Cert, site.Key)
	if err != nil {
		_ = ln.Close() // nothing was served on it
		return nil, "", jarvisbot.Errorf(jarvisbot.EINVALID, "%s: its TLS certificate %s cannot be loaded: %w; check the certificate and key files the config names", site.What, site.Cert, err)
	}
	return tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}), "https", nil
}

// Open binds the site and puts its TLS on, before anything starts, so
// that an address the owner set that cannot be bound, or a certificate
// that cannot be loaded, stops serve at once. The default address taken
// is warned of, and gives a site with no listener and the reason, for
// /readyz.
func (site Site) Open(log *slog.Logger) (Site, string, error) {
	ln, unbound, err := site.Bind()
	if err != nil {
		return Site{}, "", err
	}
	if ln == nil {
		log.Warn(unbound)
		return Site{}, unbound, nil
	}
	if site.Listener, _, err = site.TLS(ln); err != nil {
		return Site{}, "", err
	}
	site.Wrapped = true
	return site, "", nil
}

// Serve listens at the site's address and serves h. A nil endpoint
// with a nil error is a default address that was taken: warned of, and
// the reason returned for /readyz.
func Serve(site Site, h http.Handler, log *slog.Logger) (*Endpoint, string, error) {
	ln, unbound, err := site.Bind()
	if err != nil {
		return nil, "", err
	}
	if ln == nil {
		log.Warn(unbound)
		return nil, unbound, nil
	}
	ln, scheme, err := site.TLS(ln)
	if err != nil {
		return nil, "", err
	}
	// No write timeout: agent_chat may wait minutes for its turn, and the
	// activity board streams.
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	ep := &Endpoint{HTTP: srv, URL: scheme + "://" + ln.Addr().String() + site.Path}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error(site.What+" stopped", "err", err)
		}
	}()
	log.Info(site.What+" listening", "url", ep.URL)
	return ep, "", nil
}

// Shutdown stops the endpoint: requests in flight get until ctx ends,
// then what is left is cut.
func (e *Endpoint) Shutdown(ctx context.Context) {
	if err := e.HTTP.Shutdown(ctx); err != nil {
		_ = e.HTTP.Close() // the deadline passed
	}
}

// CloseTimeout is how long requests in flight (the activity stream, an
// app's call) get when an endpoint closes.
const CloseTimeout = 5 * time.Second

// Close stops the endpoint; requests in flight get CloseTimeout. A nil
// endpoint (a listener that was off) closes as nothing.
func (e *Endpoint) Close() {
	if e == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), CloseTimeout)
	defer cancel()
	e.Shutdown(ctx)
}

// Answers reports whether something accepts connections at addr.
func Answers(ctx context.Context, addr string) bool {
	d := net.Dialer{Timeout: time.Second}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	_ = c.Close() // only the connection's opening was asked
	return true
}
