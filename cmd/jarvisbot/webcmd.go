package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
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
	if cfg.Web.URL == "" && !answers(ctx, cfg.Web.Addr()) {
		fmt.Fprintf(a.stdout, "Nothing answers at %s yet: start jarvisbot serve, then open the link.\n", hostOf(base))
	}
	return nil
}

// answers reports whether something accepts connections at addr.
func answers(ctx context.Context, addr string) bool {
	d := net.Dialer{Timeout: time.Second}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	_ = c.Close() // only the connection's opening was asked
	return true
}

func hostOf(base string) string {
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		return u.Host
	}
	return base
}
