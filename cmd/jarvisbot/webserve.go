package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/web"
)

// serveWeb starts the dashboard (W1) at the configured address, when it
// is on, with the operator's probes and metrics beside it (health.go). An
// address the owner set that cannot be bound stops serve; the default one
// taken is a warning, and serve goes on without the dashboard.
func (a *cli) serveWeb(cfg config.Config, s *app.Session, log *slog.Logger) (*endpoint, error) {
	addr := cfg.Web.Addr()
	if addr == "" {
		return nil, nil
	}
	site := httpSite{what: "the dashboard", setting: "web.listen or " + config.EnvWebListen, addr: addr, explicit: cfg.Web.Listen != "",
		cert: cfg.Web.TLSCert, key: cfg.Web.TLSKey, path: "/"}
	ln, unbound, err := site.bind()
	if err != nil || ln == nil {
		if unbound != "" {
			log.Warn(unbound)
		}
		return nil, err
	}
	site.ln = ln
	o := a.webOptions(cfg, s, log)
	o.Hosts = webHosts(ln.Addr().String(), cfg.Web.URL)
	srv, err := web.New(o)
	if err != nil {
		_ = ln.Close() // nothing was served on it
		return nil, fmt.Errorf("the dashboard cannot be served: %w", err)
	}
	probes, err := a.probes(cfg, s, log)
	if err != nil {
		_ = ln.Close() // nothing was served on it
		return nil, fmt.Errorf("the dashboard cannot be served: its metrics cannot be set up: %w", err)
	}
	ep, _, err := serveHTTP(site, probes.Wrap(untilStarted(&s.Ready, srv.Handler())), log)
	if err != nil {
		return nil, err
	}
	ep.http.RegisterOnShutdown(srv.StopStreams)
	base := strings.TrimSuffix(ep.url, "/")
	if cfg.Web.URL != "" {
		base = cfg.Web.URL
	}
	link := app.LinkMaker(func(ctx context.Context) (string, time.Duration, error) {
		l, err := web.NewLink(ctx, s.DB, base, a.Now())
		return l, web.LinkTTL, err
	})
	s.DashboardLink.Store(&link)
	return ep, nil
}

// webHosts are the names the dashboard answers to: its bound address,
// localhost or the loopback address in its place when it listens on
// loopback, and web.url's host.
func webHosts(bound, publicURL string) []string {
	hosts := []string{bound}
	host, port, err := net.SplitHostPort(bound)
	if ip := net.ParseIP(host); err == nil && ip != nil && ip.IsLoopback() {
		hosts = append(hosts, net.JoinHostPort("localhost", port), net.JoinHostPort("127.0.0.1", port), net.JoinHostPort("::1", port))
	}
	if port == "80" || port == "443" { // a browser sends the host alone for the scheme's port
		for _, h := range hosts {
			if name, _, err := net.SplitHostPort(h); err == nil {
				if strings.Contains(name, ":") {
					name = "[" + name + "]"
				}
				hosts = append(hosts, name)
			}
		}
	}
	if u, err := url.Parse(publicURL); err == nil && u.Host != "" {
		hosts = append(hosts, strings.ToLower(u.Host))
		if u.Port() == "" { // a browser sends the host alone for the scheme's port
			hosts = append(hosts, strings.ToLower(u.Hostname()))
		}
	}
	return hosts
}

// Close stops the dashboard; pages in flight (the activity stream) get a
// few seconds.
func (e *endpoint) Close() {
	if e == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	e.close(ctx)
}

// webOptions are the dashboard's pages over this session: the same
// store, catalog, engine and commands' code as the CLI and the chat.
func (a *cli) webOptions(cfg config.Config, s *app.Session, log *slog.Logger) web.Options {
	o := web.Options{
		Logins:  s.DB,
		Logger:  log,
		Secure:  cfg.Web.TLSCert != "" || strings.HasPrefix(cfg.Web.URL, "https://"),
		Version: buildVersion(),

		Plugins:   web.PluginsTab(s.Service),
		Skills:    web.SkillsTab(s.Installation()),
		MCPs:      web.MCPsTab(s.Installation()),
		Agents:    web.AgentsTab(s.Installation()),
		Approvals: web.ApprovalsTab(s.Installation()),
		Activity:  web.ActivityTab(s.Installation()),
		Schedule:  web.ScheduleTab(s),
		Route:     web.RouteTab(s),
		Pause:     web.PauseSwitch(s),
	}
	if a.Clock != nil {
		o.Now = a.Clock.Now
	}
	return o
}
