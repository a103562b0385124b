package main

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/mcp/apps"
	"github.com/jarvisbot/jarvisbot/mcp/surface"
)

// surfaceServer is serve's MCP endpoint for other apps (M4).
type surfaceServer struct {
	http *http.Server
	surf *surface.Server
	url  string
}

// serveSurface starts the MCP endpoint at the configured address, when it
// is on. An address that cannot be bound (another jarvisbot has it) is
// logged and serve goes on without it: the owner's chats come first.
func (a *app) serveSurface(cfg config.Config, s *session, log *slog.Logger) *surfaceServer {
	addr := cfg.MCPServer.Addr()
	if addr == "" {
		return nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Error("the MCP endpoint for apps is not served: its address cannot be bound (change mcp_server.listen or JARVIS_MCP_LISTEN, or set it off)", "addr", addr, "err", err)
		return nil
	}
	scheme := "http"
	if cfg.MCPServer.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.MCPServer.TLSCert, cfg.MCPServer.TLSKey)
		if err != nil {
			_ = ln.Close() // nothing was served on it
			log.Error("the MCP endpoint for apps is not served: its TLS certificate cannot be loaded", "cert", cfg.MCPServer.TLSCert, "err", err)
			return nil
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
		scheme = "https"
	}
	// Rate limits count real requests, on the wall clock, whatever clock
	// the schedule runs on.
	surf := surface.New(a.backend(cfg, s), apps.New(s.db, nil, apps.Rate{}), surface.Options{Logger: log, Version: buildVersion()})
	// No write timeout: agent_chat may wait minutes for its turn.
	srv := &http.Server{Handler: surf.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	ss := &surfaceServer{http: srv, surf: surf, url: scheme + "://" + ln.Addr().String() + surface.Path}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("the MCP endpoint for apps stopped", "err", err)
		}
	}()
	log.Info("MCP endpoint for apps listening", "url", ss.url)
	return ss
}

// Close stops the endpoint; requests in flight get a few seconds.
func (ss *surfaceServer) Close() {
	if ss == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = ss.surf.Shutdown(ctx) // its sessions end with the process anyway
	if err := ss.http.Shutdown(ctx); err != nil {
		_ = ss.http.Close() // the deadline passed: what is left is cut
	}
}

// mcpServe is `jarvisbot mcp serve`: the MCP surface over stdio for a
// client that launches a command, forwarding to the running service with
// the app's key from JARVIS_APP_KEY.
func (a *app) mcpServe(ctx context.Context) error {
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	return surface.ServeStdio(ctx, a.stdin, a.stdout, appsEndpoint(cfg), a.getenv(apps.EnvKey), surface.Options{Logger: a.logger(cfg), Version: buildVersion()})
}

// buildVersion is the module version the binary was built from, "dev"
// for a build from a checkout.
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
