package fakediscord

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/bwmarrin/discordgo"
)

// rewrite sends requests for Discord's API host and its CDN host (where
// attachment links point) to the fake. The hosts are read from discordgo
// at run time, so the repository names no Discord host of its own. Requests to the fake itself (the attachment URLs it
// hands out) pass; any other host is refused, so a test never reaches
// the real service.
type rewrite struct {
	target string
	base   http.RoundTripper
}

func (rw *rewrite) RoundTrip(r *http.Request) (*http.Response, error) {
	api, err := url.Parse(discordgo.EndpointDiscord)
	if err != nil {
		return nil, err
	}
	cdn, err := url.Parse(discordgo.EndpointCDN)
	if err != nil {
		return nil, err
	}
	to, err := url.Parse(rw.target)
	if err != nil {
		return nil, err
	}
	if r.URL.Host == to.Host && r.URL.Scheme == to.Scheme {
		return rw.base.RoundTrip(r)
	}
	if r.URL.Host != api.Host && r.URL.Host != cdn.Host {
		return nil, fmt.Errorf("fakediscord: refusing a request to %s: only Discord's API and CDN hosts and the fake itself are served", r.URL.Host)
	}
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host, r.Host = to.Scheme, to.Host, to.Host
	return rw.base.RoundTrip(r)
}
