package main

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// httpSite is one of serve's HTTP endpoints (the MCP surface, the
// dashboard) as the config sets it.
type httpSite struct {
	what    string // "the dashboard", for the log
	setting string // where the owner changes its address
	addr    string
	ln      net.Listener // already bound, instead of addr
	cert    string
	key     string
	path    string // appended to the URL the log shows
}

// endpoint is a started HTTP endpoint.
type endpoint struct {
	http *http.Server
	url  string // scheme://host:port + path
}

// serveHTTP listens at the site's address (TLS when it has a certificate)
// and serves h. An address that cannot be bound (another jarvisbot has
// it) or a certificate that cannot be loaded is logged and nil returned:
// serve goes on without it, since the owner's chats come first.
func serveHTTP(site httpSite, h http.Handler, log *slog.Logger) *endpoint {
	ln := site.ln
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", site.addr); err != nil {
			log.Error(site.what+" is not served: its address cannot be bound (change "+site.setting+", or set it off)", "addr", site.addr, "err", err)
			return nil
		}
	}
	scheme := "http"
	if site.cert != "" {
		cert, err := tls.LoadX509KeyPair(site.cert, site.key)
		if err != nil {
			_ = ln.Close() // nothing was served on it
			log.Error(site.what+" is not served: its TLS certificate cannot be loaded", "cert", site.cert, "err", err)
			return nil
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
		scheme = "https"
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
	return ep
}

// close stops the endpoint: requests in flight get until ctx ends, then
// what is left is cut.
func (e *endpoint) close(ctx context.Context) {
	if err := e.http.Shutdown(ctx); err != nil {
		_ = e.http.Close() // the deadline passed
	}
}
