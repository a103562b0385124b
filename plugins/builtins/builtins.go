// Package builtins runs the built-in plugins (SPEC P6, P3, P4): which
// store plugins have native tools (Google Calendar, Gmail, Google Drive,
// Spotify), at which provider each signs in with the owner's own OAuth
// client, which sign-in in the keyring serves each (its own, or one
// Google sign-in shared by the three Google plugins), and their tools in
// the catalog and at run time. The tools themselves are
// plugins/builtins/google and plugins/builtins/spotify.
package builtins

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/retry"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/google"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/native"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/spotify"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
)

// The providers the built-in plugins sign in at.
const (
	Google  = "google"
	Spotify = "spotify"
)

// SharedGoogle is the keyring name (signin.KeyName) of one Google sign-in
// that serves every Google plugin whose scopes it was granted.
const SharedGoogle = "google"

// callTimeout bounds one API request of a tool.
const callTimeout = 30 * time.Second

// The real providers' addresses; config's signin.google / signin.spotify
// move them.
const (
	googleAuthURL   = "https://accounts.google.com/o/oauth2/v2/auth"
	googleTokenURL  = "https://oauth2.googleapis.com/token"
	spotifyAuthURL  = "https://accounts.spotify.com/authorize"
	spotifyTokenURL = "https://accounts.spotify.com/api/token"
)

// builtin is one plugin with native tools.
type builtin struct {
	provider string
	tools    func(o toolOptions) []native.Tool
}

type toolOptions struct {
	hc       *http.Client
	endpoint string
	loc      *time.Location
	now      func() time.Time
}

var plugins = map[string]builtin{
	google.Calendar: {Google, func(o toolOptions) []native.Tool { return google.CalendarTools(o.google()) }},
	google.Gmail:    {Google, func(o toolOptions) []native.Tool { return google.GmailTools(o.google()) }},
	google.Drive:    {Google, func(o toolOptions) []native.Tool { return google.DriveTools(o.google()) }},
	"spotify": {Spotify, func(o toolOptions) []native.Tool {
		return spotify.Tools(spotify.Options{HTTPClient: o.hc, Endpoint: o.endpoint})
	}},
}

func (o toolOptions) google() google.Options {
	return google.Options{HTTPClient: o.hc, Endpoint: o.endpoint, Location: o.loc, Now: o.now}
}

// Has reports whether a store plugin's tools are native.
func Has(plugin string) bool { _, ok := plugins[plugin]; return ok }

// Names are the plugins with native tools, sorted.
func Names() []string {
	out := make([]string, 0, len(plugins))
	for n := range plugins {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// ProviderOf returns the provider a built-in plugin signs in at.
func ProviderOf(plugin string) string { return plugins[plugin].provider }

// Capabilities describes a built-in plugin's tools for the catalog, as
// not connected or connected; nil for a plugin without native tools.
func Capabilities(plugin string, connected bool) []catalog.Capability {
	b, ok := plugins[plugin]
	if !ok {
		return nil
	}
	var out []catalog.Capability
	for _, t := range b.tools(toolOptions{}) {
		out = append(out, t.Capability(plugin, connected))
	}
	return out
}

// Client is the owner's OAuth client at a provider: an id given in
// the config or kept as a secret, the secret's name, and where the
// provider is (a test's fake, a proxy; "" for the real one).
type Client struct {
	ID string
	// IDSecret names the secret holding the id when ID is "".
	IDSecret string
	// SecretName names the client secret's keyring entry; "" for a
	// public client (Spotify's).
	SecretName  string
	AuthURL     string
	TokenURL    string
	APIEndpoint string
}

// Env is what signing in and running the built-in plugins needs.
type Env struct {
	Google, Spotify Client
	// Zone is the owner's time zone, for dates the tools read and write.
	Zone *time.Location
	// Lookup reads a secret by name: the keyring, then the environment.
	Lookup func(name string) (string, bool)
	Signin *signin.Manager
	// Now is the tools' clock; nil means time.Now.
	Now func() time.Time
}

// Provider returns the provider plugin signs in at with the owner's
// client, or an error that says how to register one.
func (e Env) Provider(plugin string) (signin.Provider, error) {
	switch plugins[plugin].provider {
	case Google:
		c := e.Google
		id := cmp.Or(c.ID, e.secret(c.IDSecret))
		secret := e.secret(c.SecretName)
		if id == "" || secret == "" {
			return signin.Provider{}, jarvisbot.Errorf(jarvisbot.EINVALID,
				"signing in to Google needs the OAuth client you create once (type \"Desktop app\", see the README's \"Google sign-in\"): "+
					"jarvisbot secrets set %s and jarvisbot secrets set %s", c.IDSecret, c.SecretName)
		}
		return signin.Provider{Name: "Google", ClientID: id, ClientSecret: secret,
			AuthURL: cmp.Or(c.AuthURL, googleAuthURL), TokenURL: cmp.Or(c.TokenURL, googleTokenURL),
			// offline: a refresh token; consent: Google sends one again
			// on a renewed sign-in too.
			AuthParams: map[string]string{"access_type": "offline", "prompt": "consent"}}, nil
	case Spotify:
		c := e.Spotify
		id := cmp.Or(c.ID, e.secret(c.IDSecret))
		if id == "" {
			return signin.Provider{}, jarvisbot.Errorf(jarvisbot.EINVALID,
				"signing in to Spotify needs the client id of the app you register once (see the README's \"Spotify sign-in\"): "+
					"jarvisbot secrets set %s, or signin.spotify.client_id in the config", c.IDSecret)
		}
		return signin.Provider{Name: "Spotify", ClientID: id,
			AuthURL: cmp.Or(c.AuthURL, spotifyAuthURL), TokenURL: cmp.Or(c.TokenURL, spotifyTokenURL)}, nil
	}
	return signin.Provider{}, jarvisbot.Errorf(jarvisbot.EINVALID, "%s has no built-in sign-in", plugin)
}

func (e Env) secret(name string) string {
	if e.Lookup == nil || name == "" {
		return ""
	}
	v, _ := e.Lookup(name)
	return v
}

// Grant returns the name of the keyring sign-in that serves plugin with
// scopes: its own when it has one, else the shared Google sign-in when it
// was granted all of them; ok is false when neither exists.
func (e Env) Grant(ctx context.Context, plugin string, scopes []string) (name string, ok bool, err error) {
	if _, has, err := e.Signin.Scopes(ctx, plugin); err != nil || has {
		return plugin, has, err
	}
	if plugins[plugin].provider != Google {
		return plugin, false, nil
	}
	granted, has, err := e.Signin.Scopes(ctx, SharedGoogle)
	if err != nil || !has {
		return plugin, false, err
	}
	for _, s := range scopes {
		if !slices.Contains(granted, s) {
			return plugin, false, nil
		}
	}
	return SharedGoogle, true, nil
}

// endpoint is where a provider's APIs are for this installation.
func (e Env) endpoint(provider string) string {
	if provider == Spotify {
		return e.Spotify.APIEndpoint
	}
	return e.Google.APIEndpoint
}

// Tools returns plugin's tools calling its API under the sign-in kept as
// grant: a renewed token on a 401, busy answers retried.
func (e Env) Tools(plugin, grant string) []native.Tool {
	b, ok := plugins[plugin]
	if !ok {
		return nil
	}
	hc := e.Signin.Client(grant, nil, callTimeout)
	hc.Transport = &retry.Transport{Next: hc.Transport}
	return b.tools(toolOptions{hc: hc, endpoint: e.endpoint(b.provider), loc: e.zone(), now: e.Now})
}

// zone is the tools' time zone: the owner's, else the machine's.
func (e Env) zone() *time.Location {
	if e.Zone == nil {
		return time.Local
	}
	return e.Zone
}

// GoogleUnion are the Google plugins and the union of their scopes over
// granted (what a shared sign-in already holds): what one Google sign-in
// that serves them all asks for.
func GoogleUnion(scopes map[string][]string, granted []string) (plugins, union []string) {
	union = slices.Clone(granted)
	for _, n := range Names() {
		if ProviderOf(n) != Google {
			continue
		}
		plugins = append(plugins, n)
		for _, s := range scopes[n] {
			if !slices.Contains(union, s) {
				union = append(union, s)
			}
		}
	}
	return plugins, union
}

// UsesShared reports whether plugin signs in through the shared Google
// sign-in (it has none of its own, and a shared one exists), and the
// scopes the shared one holds.
func (e Env) UsesShared(ctx context.Context, plugin string) (bool, []string, error) {
	if ProviderOf(plugin) != Google {
		return false, nil, nil
	}
	shared, _, err := e.Signin.Scopes(ctx, SharedGoogle)
	if err != nil {
		return false, nil, err
	}
	_, own, err := e.Signin.Scopes(ctx, plugin)
	if err != nil {
		return false, nil, err
	}
	return !own && len(shared) > 0, shared, nil
}
