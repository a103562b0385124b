package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/config"
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
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return unhealthy(err)
	}
	// The probe asks its own process, on this machine, and sends nothing:
	// the certificate names the public address, not the one dialled.
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}}} //nolint:gosec // see above
	res, err := c.Do(req)
	if err != nil {
		return unhealthy(fmt.Errorf("nothing answers at %s: %w", u, err))
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<10)) // a probe's answer is a line
	msg := strings.TrimSpace(string(body))
	if res.StatusCode != http.StatusOK {
		return unhealthy(fmt.Errorf("%s answered %s: %s", u, res.Status, msg))
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
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("web.listen %q is not host:port: %w", addr, err)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if ip != nil && ip.To4() == nil {
			host = "::1"
		}
	}
	scheme := "http"
	if cfg.Web.TLSCert != "" {
		scheme = "https"
	}
	return scheme + "://" + net.JoinHostPort(host, port) + path, nil
}
