package main

import (
	"context"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/appkey"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/mcp/apps"
	"github.com/jarvisbot/jarvisbot/mcp/surface"
)

// surfaceServer is serve's MCP endpoint for other apps (M4).
type surfaceServer struct {
	*endpoint
	surf *surface.Server
}

// surfaceSite binds the MCP endpoint's address, when it is on, before
// anything starts, so that an address the owner set that cannot be bound
// stops serve at once. The default one taken (another jarvisbot has it)
// is a warning and a note on /readyz, and serve goes on without the
// endpoint: the owner's chats come first. The site has no listener then.
func (a *cli) surfaceSite(cfg config.Config, s *app.Session, log *slog.Logger) (httpSite, error) {
	addr := cfg.MCPServer.Addr()
	if addr == "" {
		return httpSite{}, nil
	}
	site := httpSite{what: "the MCP endpoint for apps", setting: "mcp_server.listen or " + config.EnvMCPListen,
		addr: addr, explicit: cfg.MCPServer.Listen != "", cert: cfg.MCPServer.TLSCert, key: cfg.MCPServer.TLSKey, path: surface.Path}
	ln, unbound, err := site.bind()
	if err != nil {
		return httpSite{}, err
	}
	if ln == nil {
		log.Warn(unbound)
		s.Ready.NotServed(unbound, false)
		return httpSite{}, nil
	}
	// The certificate too is checked before anything starts.
	if site.ln, _, err = site.tls(ln); err != nil {
		return httpSite{}, err
	}
	site.wrapped = true
	return site, nil
}

// serveSurface serves the MCP endpoint on the listener surfaceSite bound;
// nil when there is none.
func (a *cli) serveSurface(cfg config.Config, s *app.Session, site httpSite, log *slog.Logger) *surfaceServer {
	if site.ln == nil {
		return nil
	}
	// Rate limits count real requests, on the wall clock, whatever clock
	// the schedule runs on.
	surf := surface.New(a.backend(cfg, s), apps.New(s.DB, nil, apps.Rate{}), surface.Options{Logger: log, Version: buildVersion()})
	ep, _, err := serveHTTP(site, surf.Handler(), log)
	if err != nil { // bound and with its TLS already: nothing can fail
		log.Error("the MCP endpoint for apps is not served", "err", err)
		return nil
	}
	return &surfaceServer{endpoint: ep, surf: surf}
}

// Close stops the endpoint; requests in flight get a few seconds.
func (ss *surfaceServer) Close() {
	if ss == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = ss.surf.Shutdown(ctx) // its sessions end with the process anyway
	ss.endpoint.close(ctx)
}

// mcpServe is `jarvisbot mcp serve`: the MCP surface over stdio for a
// client that launches a command, forwarding to the running service with
// the app's key from JARVIS_APP_KEY.
func (a *cli) mcpServe(ctx context.Context) error {
	cfg, err := a.LoadConfig()
	if err != nil {
		return err
	}
	return surface.ServeStdio(ctx, a.stdin, a.stdout, app.MCPEndpoint(cfg), a.Getenv(appkey.EnvKey), surface.Options{Logger: a.Logger(cfg), Version: buildVersion()})
}

// buildVersion is the module version the binary was built from, "dev"
// for a build from a checkout.
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
