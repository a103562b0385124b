package app

import (
	"context"

	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/plugins/builtins"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
)

// builtinEnv is how this installation signs in to and runs the built-in
// plugins (P6).
func (a *Env) BuiltinEnv(ctx context.Context, cfg config.Config, mgr *signin.Manager) builtins.Env {
	env := builtins.Env{Config: cfg, Lookup: a.Lookup(ctx, cfg), Signin: mgr}
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
