package app

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/secretref"
	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/plugins/builtins"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
)

// Signing in to a plugin (P3, P4, P6, X3): a browser sign-in, a built-in
// plugin's at its provider, or the values a plugin signs in with.

// PluginSetting is a value a plugin asks for at install (a host, a
// token), kept in the keyring.
type PluginSetting struct {
	Plugin string // the display name of the plugin that asks
	Name   string // the secret's name, such as HOME_ASSISTANT_TOKEN
	Hint   string // what it is and where to find it
	Secret bool   // a credential: whoever asks hides what is typed
}

// SignInOptions are how a plugin signs in again.
type SignInOptions struct {
	// Ask is InstallOptions.Ask.
	Ask func(PluginSetting) (string, error)
}

// SignInPlugin renews the sign-in of an installed plugin (`plugins
// signin`): a built-in plugin's at its provider, a plugin's browser
// sign-in, or the values a plugin signs in with.
func (in *Installation) SignInPlugin(ctx context.Context, name string, o SignInOptions, progress func(PluginEvent)) error {
	all, sp, err := in.storePlugin(name)
	if err != nil {
		return err
	}
	w := pluginWork{in: in, all: all, progress: progress, ask: o.Ask}
	if _, err := in.DB.InstalledPlugin(ctx, name); err != nil {
		return jarvisbot.Errorf(jarvisbot.ErrorCode(err), "%s is not installed: run jarvisbot plugins install %s", name, name)
	}
	if builtins.Has(name) {
		return w.renewBuiltin(ctx, sp.Plugin)
	}
	if si := sp.Plugin.Ext.SignIn; si != nil && si.Method == plugins.SignInAPIKey && sp.Plugin.MCP != nil {
		return w.settingsSignIn(ctx, sp.Plugin)
	}
	if !sp.Plugin.NeedsSignIn() {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s has no browser sign-in to renew (%s)", name, sp.Plugin.Ext.SignIn.Text())
	}
	return w.signIn(ctx, sp.Plugin)
}

// RenewPlugin renews an installed plugin's sign-in on the running
// service, as the chat's Renew button does: it tells the link
// (PluginRenewLink), waits for the owner's return and brings the plugin
// back (PluginRenewed).
func (in *Installation) RenewPlugin(ctx context.Context, name string, progress func(PluginEvent)) error {
	all, sp, err := in.storePlugin(name)
	if err != nil {
		return err
	}
	if in.Live == nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "renewing %s needs the running service: run jarvisbot plugins signin %s", name, name)
	}
	w := pluginWork{in: in, all: all, progress: progress}
	link, wait, err := in.Env.Renew(ctx, in.Live, name)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.ErrorCode(err), "the sign-in to %s could not start: %w", name, err)
	}
	w.tell(PluginEvent{Kind: PluginRenewLink, Plugin: name, Display: sp.Plugin.DisplayName(), Who: name, URL: link})
	if err := wait(ctx); err != nil {
		return jarvisbot.Errorf(jarvisbot.ErrorCode(err), "the sign-in to %s did not complete: %w", name, err)
	}
	in.Live.takeUp(ctx, all, name)
	w.tell(PluginEvent{Kind: PluginRenewed, Plugin: name, Display: sp.Plugin.DisplayName()})
	return nil
}

// signinManager gives the manager that runs a sign-in and takes its
// return, and done, called once the caller is through with it: the
// running service's, else one whose callback listener serves this
// command.
func (in *Installation) signinManager() (*signin.Manager, func(), error) {
	if in.Live != nil {
		if in.Live.SignIn == nil {
			return nil, nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "the keyring cannot be opened, so no sign-in can be kept (see jarvisbot's log)")
		}
		return in.Live.SignIn, func() {}, nil // the service's: it closes with the service
	}
	kr, err := in.Env.OpenSecrets(in.Config)
	if err != nil {
		return nil, nil, err
	}
	cfg := in.Config
	mgr := signin.NewManager(signin.Options{Keyring: kr, ListenAddr: cfg.SignIn.Listen, PublicBaseURL: cfg.SignIn.PublicBaseURL, LockDir: SigninLockDir(cfg)})
	return mgr, func() {
		// The sign-in is stored (or failed) by now; the listener goes with
		// the process anyway.
		if err := mgr.Close(); err != nil {
			fmt.Fprintf(in.Env.Stderr, "jarvisbot: closing the sign-in listener: %v\n", err)
		}
	}, nil
}

// forgetSignIn removes a plugin's sign-in from the keyring.
func (w pluginWork) forgetSignIn(ctx context.Context, plugin string) error {
	mgr, done, err := w.in.signinManager()
	if err != nil {
		return err
	}
	defer done()
	return mgr.Forget(ctx, plugin)
}

// signIn runs the browser sign-in of a plugin (P3, signin.Manager.SignIn).
func (w pluginWork) signIn(ctx context.Context, p *plugins.Plugin) error {
	mgr, done, err := w.in.signinManager()
	if err != nil {
		return err
	}
	defer done()
	var scopes []string
	if p.Ext.SignIn != nil {
		scopes = p.Ext.SignIn.Scopes
	}
	sp := signin.Plugin{Name: p.Manifest.Name, DisplayName: p.DisplayName(), URL: p.SignInURL(), Scopes: scopes}
	err = mgr.SignIn(ctx, w.in.DB, sp, func(link string) {
		w.tell(PluginEvent{Kind: PluginSignInLink, Plugin: p.Manifest.Name, Display: p.DisplayName(), Who: p.DisplayName(), URL: link})
	})
	if err != nil {
		return err
	}
	w.tell(PluginEvent{Kind: PluginSignedIn, Plugin: p.Manifest.Name, Display: p.DisplayName(), Who: p.DisplayName()})
	return nil
}

// signInBuiltin signs a built-in plugin in at its provider with the
// owner's client. With allGoogle, one Google sign-in with the union of the
// Google plugins' scopes serves all of them, and each is installed. A
// Google plugin whose scopes a shared sign-in already holds needs none.
func (w pluginWork) signInBuiltin(ctx context.Context, p *plugins.Plugin, allGoogle bool) error {
	name := p.Manifest.Name
	mgr, done, err := w.in.signinManager()
	if err != nil {
		return err
	}
	defer done()
	env := w.in.Env.BuiltinEnv(ctx, w.in.Config, mgr)
	scopes := ScopesOf(w.all)
	prov, err := env.Provider(name)
	if err != nil {
		// Installed, with its manual on: the owner's client is a step of
		// setup still to do, not a failure of the install.
		w.tell(PluginEvent{Kind: PluginNoClient, Plugin: name, Display: p.DisplayName(), Setup: strings.TrimPrefix(err.Error(), "signing in to ")})
		return nil
	}
	grant, connect, want := name, []string{name}, scopes[name]
	if builtins.ProviderOf(name) == builtins.Google {
		if allGoogle {
			connect, want = builtins.GoogleUnion(scopes, nil)
			grant = builtins.SharedGoogle
			for _, n := range connect {
				if err := plugins.Install(ctx, w.in.DB, w.all[n].Plugin); err != nil && jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
					return err
				}
			}
		} else if g, ok, err := env.Grant(ctx, name, want); err != nil {
			return err
		} else if ok && g == builtins.SharedGoogle {
			if err := signin.Connected(ctx, w.in.DB, name); err != nil {
				return err
			}
			w.tell(PluginEvent{Kind: PluginSharedGoogle, Plugin: name, Display: p.DisplayName()})
			return nil
		}
	}
	err = mgr.SignInProvider(ctx, w.in.DB, grant, prov, want, connect, func(link string) {
		w.tell(PluginEvent{Kind: PluginSignInLink, Plugin: name, Display: p.DisplayName(), Who: prov.Name, URL: link, Builtin: true})
	})
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.ErrorCode(err), "%w; %s stays installed: try again with jarvisbot plugins signin %s", err, p.DisplayName(), name)
	}
	names := make([]string, 0, len(connect))
	for _, n := range connect {
		names = append(names, w.all[n].Plugin.DisplayName())
	}
	who := prov.Name
	if len(names) != 1 || names[0] != prov.Name {
		who += " for " + quoteNames(names)
	}
	w.tell(PluginEvent{Kind: PluginSignedIn, Plugin: name, Display: p.DisplayName(), Who: who, Builtin: true})
	return nil
}

// renewBuiltin renews the sign-in that serves a built-in plugin: the
// shared Google one (for every Google plugin it serves) when that is what
// it uses, else its own.
func (w pluginWork) renewBuiltin(ctx context.Context, p *plugins.Plugin) error {
	name := p.Manifest.Name
	mgr, done, err := w.in.signinManager()
	if err != nil {
		return err
	}
	defer done()
	env := w.in.Env.BuiltinEnv(ctx, w.in.Config, mgr)
	if _, err := env.Provider(name); err != nil {
		return err // renewing is the one thing asked: without a client it fails
	}
	uses, _, err := env.UsesShared(ctx, name)
	if err != nil {
		return err
	}
	return w.signInBuiltin(ctx, p, uses)
}

// forgetBuiltin forgets a removed built-in plugin's own sign-in, and the
// shared Google one once no installed Google plugin is left to use it.
func (w pluginWork) forgetBuiltin(ctx context.Context, name string) error {
	if err := w.forgetSignIn(ctx, name); err != nil {
		return err
	}
	if builtins.ProviderOf(name) != builtins.Google {
		return nil
	}
	list, err := w.in.DB.InstalledPlugins(ctx)
	if err != nil {
		return err
	}
	for _, ip := range list {
		if builtins.ProviderOf(ip.Name) == builtins.Google {
			return nil // still used
		}
	}
	return w.forgetSignIn(ctx, builtins.SharedGoogle)
}

// MissingSettings are the values installing p asks for that the keyring
// or environment does not hold yet (Home Assistant's host and long-lived
// access token), in the order they are asked; none for a plugin that
// does not sign in with values.
func (in *Installation) MissingSettings(ctx context.Context, p *plugins.Plugin) []PluginSetting {
	if si := p.Ext.SignIn; si == nil || si.Method != plugins.SignInAPIKey || p.MCP == nil {
		return nil
	}
	return in.missingSettings(ctx, p)
}

// missingSettings are the ${NAME} values p's servers refer to that the
// keyring or environment does not hold yet.
func (in *Installation) missingSettings(ctx context.Context, p *plugins.Plugin) []PluginSetting {
	var out []PluginSetting
	if p.MCP == nil {
		return nil
	}
	lookup := in.Env.Lookup(ctx, in.Config)
	for _, id := range slices.Sorted(maps.Keys(p.MCP.Servers)) {
		srv := p.MCP.Servers[id]
		refs := secretref.Names(srv.URL)
		for _, k := range slices.Sorted(maps.Keys(srv.Headers)) {
			refs = append(refs, secretref.Names(srv.Headers[k])...)
		}
		for _, n := range refs {
			if _, ok := lookup(n); ok || slices.ContainsFunc(out, func(s PluginSetting) bool { return s.Name == n }) {
				continue
			}
			// A value under a secret's name ("…_TOKEN") would be a literal
			// credential: whoever asks hides what is typed.
			out = append(out, PluginSetting{Plugin: p.DisplayName(), Name: n, Hint: settingHint(p.Manifest.Name, n), Secret: secretref.LiteralSecret(n, "value")})
		}
	}
	return out
}

// askSettings asks the owner for the values missingSettings names and
// keeps them in the keyring. It reports whether every value is now known.
func (w pluginWork) askSettings(ctx context.Context, p *plugins.Plugin) (bool, error) {
	missing := w.in.missingSettings(ctx, p)
	if len(missing) == 0 {
		return true, nil
	}
	names := make([]string, 0, len(missing))
	for _, s := range missing {
		names = append(names, s.Name)
	}
	e := PluginEvent{Plugin: p.Manifest.Name, Display: p.DisplayName(), Settings: names}
	if w.ask == nil {
		e.Kind = PluginSettingsMissing
		w.tell(e)
		return false, nil
	}
	kr, err := w.in.Env.OpenSecrets(w.in.Config)
	if err != nil {
		return false, err
	}
	for _, s := range missing {
		v, err := w.ask(s)
		if err != nil {
			return false, err
		}
		if v == "" {
			e.Kind, e.Settings = PluginNoValue, []string{s.Name}
			w.tell(e)
			return false, nil
		}
		if err := kr.Set(ctx, s.Name, v); err != nil {
			return false, err
		}
	}
	e.Kind = PluginSettingsKept
	w.tell(e)
	return true, nil
}

// settingHint says what a plugin's setting is, for the prompt.
func settingHint(plugin, name string) string {
	switch {
	case plugin == "home-assistant" && strings.HasSuffix(name, "_HOST"):
		return "your Home Assistant's host and port, such as homeassistant.example.net:8123, reached over https, with its MCP Server integration added"
	case plugin == "home-assistant" && strings.HasSuffix(name, "_TOKEN"):
		return "a long-lived access token: your Home Assistant profile, Security, Create token"
	case plugin == "youtube-music" && strings.HasSuffix(name, "_HOST"):
		return "the host and port of the YouTube Music MCP server you run, reached over https"
	case plugin == "youtube-music" && strings.HasSuffix(name, "_TOKEN"):
		return "the bearer token your YouTube Music MCP server expects"
	}
	return "kept in the keyring, never in the database"
}

// settingsSignIn completes the install of a plugin that signs in with
// values the owner gives (an API key, a host): asked for when missing,
// then its servers are switched on.
func (w pluginWork) settingsSignIn(ctx context.Context, p *plugins.Plugin) error {
	ok, err := w.askSettings(ctx, p)
	if err != nil || !ok {
		return err
	}
	if err := signin.Connected(ctx, w.in.DB, p.Manifest.Name); err != nil {
		return err
	}
	w.tell(PluginEvent{Kind: PluginSettingsOn, Plugin: p.Manifest.Name, Display: p.DisplayName()})
	return nil
}
