package app

import (
	"cmp"
	"context"

	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/plugins/builtins"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
)

// BuiltinEnv is how this installation signs in to and runs the built-in
// plugins (P6): the owner's clients from the config, secrets from the
// keyring or environment.
func (a *Env) BuiltinEnv(ctx context.Context, cfg config.Config, mgr *signin.Manager) builtins.Env {
	google, spotify := cfg.SignIn.Google, cfg.SignIn.Spotify
	env := builtins.Env{
		Google: builtins.Client{ID: google.ClientID, IDSecret: config.SecretGoogleClientID,
			SecretName: cmp.Or(google.ClientSecretSecret, config.SecretGoogleClientSecret),
			AuthURL:    google.AuthURL, TokenURL: google.TokenURL, APIEndpoint: google.APIEndpoint},
		Spotify: builtins.Client{ID: spotify.ClientID, IDSecret: config.SecretSpotifyClientID,
			AuthURL: spotify.AuthURL, TokenURL: spotify.TokenURL, APIEndpoint: spotify.APIEndpoint},
		Zone:   cfg.Location(),
		Lookup: a.Lookup(ctx, cfg),
		Signin: mgr,
	}
	if a.Clock != nil {
		env.Now = a.Clock.Now
	}
	return env
}

// ScopesOf are each store plugin's sign-in scopes, from its manifest.
func ScopesOf(all collection.Collection) map[string][]string {
	out := map[string][]string{}
	for name, sp := range all {
		if si := sp.Plugin.Ext.SignIn; si != nil {
			out[name] = si.Scopes
		}
	}
	return out
}
