package main

import (
	"context"
	"log/slog"
	"runtime/debug"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/appkey"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/httpsite"
	"github.com/jarvisbot/jarvisbot/mcp/apps"
	"github.com/jarvisbot/jarvisbot/mcp/surface"
)

// surfaceSite binds the MCP endpoint's address (M4), when it is on,
// before anything starts, so that an address the owner set that cannot be
// bound stops serve at once. The default one taken (another jarvisbot has
// it) is a warning and a note on /readyz, and serve goes on without the
// endpoint: the owner's chats come first. The site has no listener then.
func (a *cli) surfaceSite(cfg config.Config, s *app.Session, log *slog.Logger) (httpsite.Site, error) {
	addr := cfg.MCPServer.Addr()
	if addr == "" {
		return httpsite.Site{}, nil
	}
	site, unbound, err := httpsite.Site{What: "the MCP endpoint for apps", Setting: "mcp_server.listen or " + config.EnvMCPListen,
		Addr: addr, Explicit: cfg.MCPServer.Listen != "", Cert: cfg.MCPServer.TLSCert, Key: cfg.MCPServer.TLSKey, Path: surface.Path}.Open(log)
	if unbound != "" {
		s.Ready.NotServed(unbound, false)
	}
	return site, err
}

// serveSurface serves the MCP endpoint on the listener surfaceSite bound;
// nil when there is none.
func (a *cli) serveSurface(cfg config.Config, s *app.Session, site httpsite.Site, log *slog.Logger) *surface.Endpoint {
	if site.Listener == nil {
		return nil
	}
	// Rate limits count real requests, on the wall clock, whatever clock
	// the schedule runs on.
	surf := surface.New(a.backend(cfg, s), apps.New(s.DB, nil, apps.Rate{}), surface.Options{Logger: log, Version: buildVersion()})
	return surf.Serve(site)
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
