package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/httpsite"
)

// cmdHealthcheck asks the running serve whether it is alive (/healthz)
// or ready (/readyz) on the configured web listener: a container's
// HEALTHCHECK, where there is no curl (issue 20). Any failure is exit
// status 1, never 2, which Docker reserves.
func cmdHealthcheck(ctx context.Context, a *cli, args []string) error {
	fs := newFlagSet(a, "healthcheck", "healthcheck [--ready] [--timeout 3s]")
	ready := fs.Bool("ready", false, "ask /readyz (ready for traffic) instead of /healthz (alive)")
	timeout := fs.Duration("timeout", 3*time.Second, "how long to wait for the answer")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return err
	} else if err != nil {
		return unhealthy(err)
	}
	if len(pos) > 0 {
		return unhealthy(fmt.Errorf("healthcheck takes no arguments"))
	}
	cfg, err := a.LoadConfig()
	if err != nil {
		return unhealthy(err)
	}
	path := "/healthz"
	if *ready {
		path = "/readyz"
	}
	u, err := probeURL(cfg, path)
	if err != nil {
		return unhealthy(err)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	msg, err := httpsite.Probe(ctx, u)
	if err != nil {
		return unhealthy(err)
	}
	fmt.Fprintln(a.stdout, msg)
	return nil
}

// unhealthy is a failed check: exit status 1 whatever the cause.
func unhealthy(err error) error {
	return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%v", err)
}

// probeURL is the address of path on the web listener as this machine
// reaches it: an address on every interface is asked on loopback.
func probeURL(cfg config.Config, path string) (string, error) {
	addr := cfg.Web.Addr()
	if addr == "" {
		return "", fmt.Errorf("the web listener is off (web.listen: off): set web.listen or JARVIS_WEB_LISTEN, where /healthz and /readyz are served")
	}
	u, err := httpsite.LocalURL(addr, cfg.Web.TLSCert != "", path)
	if err != nil {
		return "", fmt.Errorf("web.listen %q is not host:port: %w", addr, err)
	}
	return u, nil
}
