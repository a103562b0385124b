package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/secretref"
	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/plugins/builtins"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// signInBuiltin signs a built-in plugin in at its provider with the
// owner's client. With allGoogle, one Google sign-in with the union of the
// Google plugins' scopes serves all of them, and each is installed. A
// Google plugin whose scopes a shared sign-in already holds needs none.
func (w pluginWork) signInBuiltin(ctx context.Context, p *plugins.Plugin, allGoogle bool) error {
	name := p.Manifest.Name
	mgr, done, err := w.signin()
	if err != nil {
		return err
	}
	defer done()
	env := w.a.BuiltinEnv(ctx, w.cfg, mgr)
	scopes := app.ScopesOf(w.all)
	prov, err := env.Provider(name)
	if err != nil {
		// Installed, with its manual on: the owner's client is a step of
		// setup still to do, not a failure of the install.
		fmt.Fprintf(w.out, "To use its tools, %s.\nThen sign in with: jarvisbot plugins signin %s\n", strings.TrimPrefix(err.Error(), "signing in to "), name)
		return nil
	}
	grant, connect, want := name, []string{name}, scopes[name]
	if builtins.ProviderOf(name) == builtins.Google {
		if allGoogle {
			connect, want = builtins.GoogleUnion(scopes, nil)
			grant = builtins.SharedGoogle
			for _, n := range connect {
				if err := plugins.Install(ctx, w.db, w.all[n].Plugin); err != nil && jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
					return err
				}
			}
		} else if g, ok, err := env.Grant(ctx, name, want); err != nil {
			return err
		} else if ok && g == builtins.SharedGoogle {
			if err := signin.Connected(ctx, w.db, name); err != nil {
				return err
			}
			fmt.Fprintf(w.out, "%s uses your Google sign-in, which already grants what it needs. Its tools join your agents while the service runs.\n", p.DisplayName())
			return nil
		}
	}
	err = mgr.SignInProvider(ctx, w.db, grant, prov, want, connect, func(link string) { w.showLink(prov.Name, link) })
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
	fmt.Fprintf(w.out, "Signed in to %s. The sign-in is kept in the keyring; the tools join your agents while the service runs.\n", who)
	return nil
}

// renewBuiltin renews the sign-in that serves a built-in plugin: the
// shared Google one (for every Google plugin it serves) when that is what
// it uses, else its own.
func (w pluginWork) renewBuiltin(ctx context.Context, p *plugins.Plugin) error {
	name := p.Manifest.Name
	mgr, done, err := w.signin()
	if err != nil {
		return err
	}
	defer done()
	env := w.a.BuiltinEnv(ctx, w.cfg, mgr)
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
	list, err := w.db.InstalledPlugins(ctx)
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

// callBuiltin runs one tool of an installed built-in plugin for the owner
// (`plugins call`), as `mcp call` does for a server: the owner's own
// command, so no approval is asked.
func (a *cli) callBuiltin(ctx context.Context, cfg config.Config, db *sqlstore.DB, all collection.Collection, name, tool, argJSON string) error {
	if !builtins.Has(name) {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s has no built-in tools; for a plugin's MCP server use jarvisbot mcp call SERVER TOOL", name)
	}
	ip, err := db.InstalledPlugin(ctx, name)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.ErrorCode(err), "%s is not installed: run jarvisbot plugins install %s", name, name)
	}
	if !json.Valid([]byte(argJSON)) {
		return jarvisbot.Errorf(jarvisbot.EINVALID, `the arguments are not JSON: give an object such as '{"query": "lunch"}'`)
	}
	var cp *catalog.Capability
	for _, c := range builtins.Capabilities(name, true) {
		if c.Name == tool {
			cp = &c
		}
	}
	if cp == nil {
		var names []string
		for _, c := range builtins.Capabilities(name, true) {
			names = append(names, c.Name)
		}
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "%s has no tool %q; it has %s", name, tool, quoteNames(names))
	}
	kr, err := a.OpenSecrets(cfg)
	if err != nil {
		return err
	}
	mgr := signin.NewManager(signin.Options{Keyring: kr, LockDir: app.SigninLockDir(cfg)})
	defer func() { _ = mgr.Close() }() // it starts no listener, so closing has nothing to report
	scopes := app.ScopesOf(all)
	r := builtins.Runner{Env: a.BuiltinEnv(ctx, cfg, mgr), Scopes: func(p string) []string { return scopes[p] }}
	out, err := r.Run(ctx, catalog.Call{Cap: cp, Args: json.RawMessage(argJSON), Agent: "owner"})
	if errors.Is(err, signin.ErrNeedsAttention) && ip.State != store.PluginNeedsAttention {
		if serr := db.SetPluginState(ctx, name, store.PluginNeedsAttention); serr != nil {
			fmt.Fprintf(a.Stderr, "jarvisbot: recording that %s needs attention: %v\n", name, serr)
		}
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(a.stdout, out.Text)
	return err
}

// quoteNames joins names for a sentence: "a", "a and b", "a, b and c".
func quoteNames(names []string) string {
	switch len(names) {
	case 0:
		return "none"
	case 1:
		return names[0]
	}
	out := ""
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			out += " and "
		default:
			out += ", "
		}
		out += n
	}
	return out
}

// missingSettings are the ${NAME} values a plugin's servers refer to
// that the keyring or environment does not hold yet (Home Assistant's
// host and long-lived access token), in the order they are asked.
func (a *cli) missingSettings(ctx context.Context, cfg config.Config, p *plugins.Plugin) []string {
	var names []string
	if p.MCP == nil {
		return nil
	}
	lookup := a.Lookup(ctx, cfg)
	for _, id := range slices.Sorted(maps.Keys(p.MCP.Servers)) {
		srv := p.MCP.Servers[id]
		refs := secretref.Names(srv.URL)
		for _, k := range slices.Sorted(maps.Keys(srv.Headers)) {
			refs = append(refs, secretref.Names(srv.Headers[k])...)
		}
		for _, n := range refs {
			if _, ok := lookup(n); !ok && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}

// askSettings asks the owner for the values missingSettings names and
// keeps them in the keyring. It reports whether every value is now known.
func (w pluginWork) askSettings(ctx context.Context, p *plugins.Plugin) (bool, error) {
	names := w.a.missingSettings(ctx, w.cfg, p)
	if len(names) == 0 {
		return true, nil
	}
	if w.ask == nil {
		fmt.Fprintf(w.out, "%s needs %s: set each with jarvisbot secrets set NAME, then run jarvisbot plugins signin %s.\n", p.DisplayName(), strings.Join(names, " and "), p.Manifest.Name)
		return false, nil
	}
	kr, err := w.a.OpenSecrets(w.cfg)
	if err != nil {
		return false, err
	}
	for _, n := range names {
		v, err := w.ask(n, fmt.Sprintf("%s needs %s (%s)", p.DisplayName(), n, settingHint(p.Manifest.Name, n)))
		if err != nil {
			return false, err
		}
		if v == "" {
			fmt.Fprintf(w.out, "No value given. %s stays installed and off; set it with jarvisbot secrets set %s, then run jarvisbot plugins signin %s.\n", p.DisplayName(), n, p.Manifest.Name)
			return false, nil
		}
		if err := kr.Set(ctx, n, v); err != nil {
			return false, err
		}
	}
	fmt.Fprintf(w.out, "Kept %s in the keyring.\n", strings.Join(names, " and "))
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
	if err := signin.Connected(ctx, w.db, p.Manifest.Name); err != nil {
		return err
	}
	fmt.Fprintf(w.out, "%s is on; jarvisbot connects to it when the service runs (check it with jarvisbot mcp list --check).\n", p.DisplayName())
	return nil
}
