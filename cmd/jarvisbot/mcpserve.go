package main

import (
	"context"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/mcp/apps"
	"github.com/jarvisbot/jarvisbot/mcp/surface"
)

// surfaceServer is serve's MCP endpoint for other apps (M4).
type surfaceServer struct {
	*endpoint
	surf *surface.Server
}

// serveSurface starts the MCP endpoint at the configured address, when it
// is on. An address that cannot be bound (another jarvisbot has it) is
// logged and serve goes on without it: the owner's chats come first.
func (a *app) serveSurface(cfg config.Config, s *session, log *slog.Logger) *surfaceServer {
	addr := cfg.MCPServer.Addr()
	if addr == "" {
		return nil
	}
	// Rate limits count real requests, on the wall clock, whatever clock
	// the schedule runs on.
	surf := surface.New(a.backend(cfg, s), apps.New(s.db, nil, apps.Rate{}), surface.Options{Logger: log, Version: buildVersion()})
	ep := serveHTTP(httpSite{what: "the MCP endpoint for apps", setting: "mcp_server.listen or JARVIS_MCP_LISTEN",
		addr: addr, cert: cfg.MCPServer.TLSCert, key: cfg.MCPServer.TLSKey, path: surface.Path}, surf.Handler(), log)
	if ep == nil {
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
