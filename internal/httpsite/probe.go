package httpsite

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
)

// LocalURL is the address of path on a listener at addr as this machine
// reaches it: an address on every interface is asked on loopback. An addr
// that is not host:port is net.SplitHostPort's error.
func LocalURL(addr string, secure bool, path string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if ip != nil && ip.To4() == nil {
			host = "::1"
		}
	}
	scheme := "http"
	if secure {
		scheme = "https"
	}
	return scheme + "://" + net.JoinHostPort(host, port) + path, nil
}

// Probe asks u (a /healthz or /readyz on this machine) and returns its
// one-line answer; anything but 200 OK is an error saying what answered.
func Probe(ctx context.Context, u string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	// The probe asks its own process, on this machine, and sends nothing:
	// the certificate names the public address, not the one dialled.
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}}} //nolint:gosec // see above
	res, err := c.Do(req)
	if err != nil {
		return "", fmt.Errorf("nothing answers at %s: %w", u, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<10)) // a probe's answer is a line
	msg := strings.TrimSpace(string(body))
	if res.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s answered %s: %s", u, res.Status, msg)
	}
	return msg, nil
}
