package discord

import (
	"net/http"
	"net/url"
	"time"

	"github.com/bwmarrin/discordgo"
)

// apiBaseClient sends the requests meant for Discord's API host to base
// instead (a rate-limit proxy, a test fake): REST calls and the gateway
// lookup alike. Requests to other hosts pass unchanged.
func apiBaseClient(base string) (*http.Client, error) {
	to, err := url.Parse(base)
	if err != nil || to.Host == "" || (to.Scheme != "http" && to.Scheme != "https") {
		return nil, &url.Error{Op: "parse", URL: base, Err: errBadBase}
	}
	api, err := url.Parse(discordgo.EndpointDiscord)
	if err != nil {
		return nil, err
	}
	next := http.DefaultTransport.(*http.Transport).Clone()
	return &http.Client{Timeout: 20 * time.Second, Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.URL.Host == api.Host {
			r = r.Clone(r.Context())
			r.URL.Scheme, r.URL.Host, r.Host = to.Scheme, to.Host, to.Host
		}
		return next.RoundTrip(r)
	})}, nil
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

type baseError string

func (e baseError) Error() string { return string(e) }

const errBadBase = baseError("discord.api_base must be an http(s) address such as http://127.0.0.1:8080")
