package signin

import (
	"context"
	"errors"
	"io"
	"maps"
	"net/http"
	"slices"
	"time"

	"golang.org/x/oauth2"

	"github.com/jarvisbot/jarvisbot"
)

// A Provider is an authorization server known in advance, with a client
// the owner registered there once: Google, which has no dynamic
// registration (a "Desktop app" client with its id and secret), and
// Spotify (a public client: an id, PKCE, no secret). Built-in plugins
// sign in to one; there is no MCP server to discover it from and no RFC
// 8707 resource.
type Provider struct {
	Name         string // for the owner: "Google"
	AuthURL      string
	TokenURL     string
	ClientID     string
	ClientSecret string // "" for a public client
	// AuthParams are extra parameters of the authorization URL, such as
	// Google's access_type=offline, which a refresh token needs.
	AuthParams map[string]string
}

// BeginProvider starts a sign-in of plugin at provider p with the given
// scopes and returns the URL the owner opens: PKCE S256, a single-use
// state, the loopback (or public) callback as for Begin. The grant is
// kept under KeyName(plugin).
func (m *Manager) BeginProvider(ctx context.Context, plugin string, p Provider, scopes []string) (string, error) {
	if err := validPlugin(plugin); err != nil {
		return "", err
	}
	switch {
	case p.ClientID == "":
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "cannot sign in to %s: no OAuth client id is set for %s", plugin, p.Name)
	case p.AuthURL == "" || p.TokenURL == "":
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "cannot sign in to %s: %s's authorization and token URLs are not set", plugin, p.Name)
	}
	for _, u := range []string{p.AuthURL, p.TokenURL} {
		if err := secureURL(u); err != nil {
			return "", jarvisbot.Errorf(jarvisbot.EINVALID, "cannot sign in to %s at %s: %w", plugin, p.Name, err)
		}
	}
	var old *Grant
	switch g, err := m.read(ctx, plugin); {
	case err == nil:
		old = &g
	case jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND:
		return "", err
	}
	redirectURI, err := m.redirectURI(old)
	if err != nil {
		return "", err
	}
	g := Grant{
		ClientID:     p.ClientID,
		ClientSecret: p.ClientSecret,
		AuthMethod:   "client_secret_post",
		RedirectURI:  redirectURI,
		AuthURL:      p.AuthURL,
		TokenURL:     p.TokenURL,
		Scopes:       slices.Clone(scopes),
	}
	if p.ClientSecret == "" {
		g.AuthMethod = "none"
	}
	f := m.newFlow(plugin, g)
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(f.verifier)}
	for _, k := range slices.Sorted(maps.Keys(p.AuthParams)) {
		opts = append(opts, oauth2.SetAuthURLParam(k, p.AuthParams[k]))
	}
	return m.pend(f, oauthConfig(g).AuthCodeURL(f.state, opts...))
}

// SignInProvider is SignIn for a built-in plugin: the sign-in at p with
// scopes, kept under the name grant (the plugin's own, or one shared by
// several plugins of the same provider), then each of plugins recorded as
// connected.
func (m *Manager) SignInProvider(ctx context.Context, db Servers, grant string, p Provider, scopes []string, plugins []string, link func(url string)) error {
	url, err := m.BeginProvider(ctx, grant, p, scopes)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.ErrorCode(err), "sign-in to %s could not start: %w", p.Name, err)
	}
	link(url)
	if err := m.Wait(ctx, grant); err != nil {
		return jarvisbot.Errorf(jarvisbot.ErrorCode(err), "sign-in to %s did not complete: %w", p.Name, err)
	}
	for _, pl := range plugins {
		if err := Connected(ctx, db, pl); err != nil {
			return err
		}
	}
	return nil
}

// Scopes returns the scopes of the grant kept under name, and whether it
// holds a token: a plugin may use a shared grant that covers its scopes.
func (m *Manager) Scopes(ctx context.Context, name string) ([]string, bool, error) {
	g, err := m.read(ctx, name)
	if err != nil {
		if jarvisbot.ErrorCode(err) == jarvisbot.ENOTFOUND {
			return nil, false, nil
		}
		return nil, false, err
	}
	return g.Scopes, g.Token != nil && g.Token.AccessToken != "", nil
}

// Client returns an HTTP client for a built-in plugin's API calls under
// the grant kept as name: each request carries a valid access token; a
// 401 renews the token once and sends the request again, and when the
// sign-in cannot be renewed the error wraps ErrNeedsAttention. next nil
// means http.DefaultTransport; timeout bounds each request.
func (m *Manager) Client(name string, next http.RoundTripper, timeout time.Duration) *http.Client {
	if next == nil {
		next = http.DefaultTransport
	}
	return &http.Client{Timeout: timeout, Transport: &renewing{bearer: bearer{m: m, plugin: name, next: next}}}
}

// renewing is bearer that, when the server refuses the token, sends the
// request once more with a renewed one.
type renewing struct{ bearer bearer }

func (t *renewing) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil && r.Body != http.NoBody && r.GetBody == nil {
		return t.bearer.RoundTrip(r) // cannot be sent twice
	}
	resp, err := t.bearer.RoundTrip(r)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	r2 := r.Clone(r.Context())
	if r.GetBody != nil {
		if r2.Body, err = r.GetBody(); err != nil {
			return resp, nil
		}
	}
	again, err := t.bearer.RoundTrip(r2)
	if err != nil {
		if errors.Is(err, ErrNeedsAttention) {
			resp.Body.Close()
			return nil, err
		}
		return resp, nil // the first answer says more than a network error now
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // only drained for the connection's reuse
	resp.Body.Close()
	return again, nil
}
