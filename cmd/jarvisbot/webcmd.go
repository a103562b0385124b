package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/httpsite"
	"github.com/jarvisbot/jarvisbot/web"
)

// cmdWeb prints a one-time sign-in link to the dashboard that serve
// serves (W1), and says when serve does not answer at its address.
func cmdWeb(ctx context.Context, a *cli, args []string) error {
	fs := newFlagSet(a, "web", "web   (prints a one-time sign-in link to the dashboard)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "web takes no arguments: it prints a sign-in link to the dashboard")
	}
	cfg, db, err := a.Open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	base := app.WebBase(cfg)
	if base == "" {
		return jarvisbot.Errorf(jarvisbot.ECONFLICT, "the dashboard is off (web.listen: off): set web.listen in the config, or JARVIS_WEB_LISTEN, to an address such as 127.0.0.1:8780 and restart jarvisbot serve")
	}
	link, err := web.NewLink(ctx, db, base, a.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "Open this link to sign in to the dashboard (it works once, within %d minutes):\n%s\n", int(web.LinkTTL/time.Minute), link)
	if cfg.Web.URL == "" && !httpsite.Answers(ctx, cfg.Web.Addr()) {
		fmt.Fprintf(a.stdout, "Nothing answers at %s yet: start jarvisbot serve, then open the link.\n", hostOf(base))
	}
	return nil
}

// hostOf is the host:port of the dashboard's address, for saying where
// nothing answers.
func hostOf(base string) string {
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		return u.Host
	}
	return base
}

// serveWeb starts the dashboard (W1) at the configured address, when it
// is on, with the operator's probes and metrics beside it. An address the
// owner set that cannot be bound stops serve; the default one taken is a
// warning, and serve goes on without the dashboard.
func (a *cli) serveWeb(cfg config.Config, s *app.Session, log *slog.Logger) (*httpsite.Endpoint, error) {
	addr := cfg.Web.Addr()
	if addr == "" {
		return nil, nil
	}
	return web.Serve(s, web.Serving{
		Site: httpsite.Site{What: "the dashboard", Setting: "web.listen or " + config.EnvWebListen, Addr: addr, Explicit: cfg.Web.Listen != "",
			Cert: cfg.Web.TLSCert, Key: cfg.Web.TLSKey, Path: "/"},
		URL: cfg.Web.URL, Metrics: cfg.Web.Metrics, BehindProxy: cfg.Web.BehindProxy,
		Version: buildVersion(), Now: a.Now, Logger: log,
	})
}
