package web

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/httpsite"
)

// Serving is where and how serve puts the dashboard (W1) up.
type Serving struct {
	// Site is the listener as the config sets it (web.listen, its TLS
	// certificate).
	Site httpsite.Site
	// URL is web.url, the address a proxy serves the dashboard at; ""
	// when the browser reaches the listener itself.
	URL string
	// Metrics serves /metrics (web.metrics); BehindProxy refuses it to
	// requests a proxy forwarded (web.behind_proxy).
	Metrics     bool
	BehindProxy bool
	Version     string
	// Now is the clock for sign-in links and sessions; time.Now when nil.
	Now    func() time.Time
	Logger *slog.Logger
}

// Serve starts the dashboard over s at o.Site, with the operator's probes
// beside it (startup.go), and makes the chat's /dashboard sign-in links.
// An address the owner set that cannot be bound is an error; the default
// one taken is a warning and a nil endpoint, and serve goes on without
// the dashboard.
func Serve(s *app.Session, o Serving) (*httpsite.Endpoint, error) {
	log, site := o.Logger, o.Site
	ln, unbound, err := site.Bind()
	if err != nil || ln == nil {
		if unbound != "" {
			log.Warn(unbound)
		}
		return nil, err
	}
	site.Listener = ln
	opts := ForSession(s)
	opts.Logger, opts.Version, opts.Now = log, o.Version, o.Now
	opts.Secure = site.Cert != "" || strings.HasPrefix(o.URL, "https://")
	opts.Hosts = hosts(ln.Addr().String(), o.URL)
	srv, err := New(opts)
	if err != nil {
		_ = ln.Close() // nothing was served on it
		return nil, fmt.Errorf("the dashboard cannot be served: %w", err)
	}
	probes, err := o.probes(s)
	if err != nil {
		_ = ln.Close() // nothing was served on it
		return nil, fmt.Errorf("the dashboard cannot be served: its metrics cannot be set up: %w", err)
	}
	ep, _, err := httpsite.Serve(site, probes.Wrap(untilStarted(&s.Ready, srv.Handler())), log)
	if err != nil {
		return nil, err
	}
	ep.HTTP.RegisterOnShutdown(srv.StopStreams)
	base := strings.TrimSuffix(ep.URL, "/")
	if o.URL != "" {
		base = o.URL
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	link := app.LinkMaker(func(ctx context.Context) (string, time.Duration, error) {
		l, err := NewLink(ctx, s.DB, base, now())
		return l, LinkTTL, err
	})
	s.DashboardLink.Store(&link)
	return ep, nil
}

// hosts are the names the dashboard answers to: its bound address,
// localhost or the loopback address in its place when it listens on
// loopback, and web.url's host.
func hosts(bound, publicURL string) []string {
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

// ForSession is the dashboard's pages over a session: the same store,
// catalog, engine and use cases as the CLI and the chat. Serve adds the
// logger, clock, version and the names it answers to.
func ForSession(s *app.Session) Options {
	return Options{
		Logins: s.DB,

		Overview:  OverviewTab(s),
		Plugins:   PluginsTab(s.Service),
		Skills:    SkillsTab(s.Installation()),
		MCPs:      MCPsTab(s.Installation()),
		Agents:    AgentsTab(s.Installation()),
		Approvals: ApprovalsTab(s.Installation()),
		Activity:  ActivityTab(s.Installation()),
		Said:      SaidSearch(s.Installation()),
		Schedule:  ScheduleTab(s),
		Route:     RouteTab(s),
		Pause:     PauseSwitch(s),
		Budgets:   BudgetsTab(s),
		Chats:     ChatsTab(s),
	}
}
