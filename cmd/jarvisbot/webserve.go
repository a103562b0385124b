package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/web"
)

// serveWeb starts the dashboard (W1) at the configured address, when it
// is on, with the operator's probes and metrics beside it (health.go). An
// address the owner set that cannot be bound stops serve; the default one
// taken is a warning, and serve goes on without the dashboard.
func (a *app) serveWeb(cfg config.Config, s *session, log *slog.Logger) (*endpoint, error) {
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
	ep, _, err := serveHTTP(site, probes.Wrap(untilStarted(&s.ready, srv.Handler())), log)
	if err != nil {
		return nil, err
	}
	ep.http.RegisterOnShutdown(srv.StopStreams)
	base := strings.TrimSuffix(ep.url, "/")
	if cfg.Web.URL != "" {
		base = cfg.Web.URL
	}
	s.webURL.Store(&base)
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
func (a *app) webOptions(cfg config.Config, s *session, log *slog.Logger) web.Options {
	o := web.Options{
		Logins:  s.db,
		Logger:  log,
		Secure:  cfg.Web.TLSCert != "" || strings.HasPrefix(cfg.Web.URL, "https://"),
		Version: buildVersion(),

		Plugins:   a.webPlugins(cfg, s),
		Skills:    a.webSkills(cfg, s),
		MCPs:      a.webMCPs(cfg, s),
		Agents:    a.webAgents(cfg, s),
		Approvals: a.webApprovals(cfg, s),
		Activity:  a.webActivity(cfg, s),
		Schedule:  a.webSchedule(cfg, s),
		Route:     a.webRoute(cfg, s),
		Pause:     pauseSwitch{s},
	}
	if a.clock != nil {
		o.Now = a.clock.Now
	}
	return o
}

// now is the app's clock.
func (a *app) now() time.Time {
	if a.clock != nil {
		return a.clock.Now()
	}
	return time.Now()
}

// webBase is the dashboard's address as configured: web.url, else its
// listen address; "" when it is off.
func webBase(cfg config.Config) string {
	if cfg.Web.URL != "" {
		return cfg.Web.URL
	}
	addr := cfg.Web.Addr()
	if addr == "" {
		return ""
	}
	scheme := "http"
	if cfg.Web.TLSCert != "" {
		scheme = "https"
	}
	return scheme + "://" + addr
}

// dashboardURL is the dashboard's address for links in chat messages:
// web.url, the address the owner opens, only; a listen address is often
// loopback, which a phone cannot open.
func dashboardURL(cfg config.Config) string {
	if cfg.Web.Addr() == "" {
		return ""
	}
	return cfg.Web.URL
}

// commands are the slash commands the desk answers from the service: the
// facts' and /dashboard.
func (s *service) commands(a *app) map[string]func(ctx context.Context, chat string) string {
	cmds := s.facts().Commands()
	cmds["dashboard"] = func(ctx context.Context, _ string) string {
		base := s.webURL.Load()
		if base == nil {
			if webBase(s.cfg) == "" {
				return "The dashboard is off (web.listen: off). Set web.listen (or JARVIS_WEB_LISTEN) and restart jarvisbot."
			}
			return "The dashboard is not running in this process: it starts with jarvisbot serve."
		}
		link, err := web.NewLink(ctx, s.db, *base, a.now())
		if err != nil {
			s.log.Error("making a dashboard link", "err", err)
			return "I could not make a sign-in link: " + err.Error()
		}
		return fmt.Sprintf("Open the dashboard: %s\nThe link works once, within %d minutes; it becomes a session in that browser.", link, int(web.LinkTTL/time.Minute))
	}
	return cmds
}
