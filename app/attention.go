package app

import (
	"context"
	"slices"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app/assembly"
	"github.com/jarvisbot/jarvisbot/plugins/builtins"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
	"github.com/jarvisbot/jarvisbot/store"
)

// A sign-in that expired or was revoked (P4) puts its plugin under Needs
// attention: its tools leave every agent's list, the owner is told once
// with a Renew button, and a renewed sign-in brings the plugin back
// without a restart.

// attention handles a built-in plugin's tool call that found its sign-in
// unusable.
func (s *Service) attention(ctx context.Context, plugin string, err error) {
	if serr := s.DB.SetPluginState(context.WithoutCancel(ctx), plugin, store.PluginNeedsAttention); serr != nil {
		s.log.Error("a plugin's state could not be recorded", "plugin", plugin, "err", serr)
	}
	if cerr := s.Catalog.SetConnected(plugin, false); cerr != nil && jarvisbot.ErrorCode(cerr) != jarvisbot.ENOTFOUND {
		s.log.Error("taking a plugin's tools away", "plugin", plugin, "err", cerr)
	}
	s.tellAttention(ctx, plugin, err)
}

// tellAttention tells the owner once that plugin needs attention, until a
// renewed sign-in brings it back.
func (s *Service) tellAttention(ctx context.Context, plugin string, err error) {
	if _, dup := s.told.LoadOrStore(plugin, true); dup {
		return
	}
	s.log.Warn("a plugin's sign-in needs attention; its tools are off until it is renewed", "plugin", plugin, "err", err, "renew", "jarvisbot plugins signin "+plugin)
	if s.tell != nil {
		s.tell(context.WithoutCancel(ctx), plugin)
	}
}

// syncBuiltins takes up built-in plugins installed, signed in or removed
// with the command line while the service runs (assembly.SyncBuiltins).
func (s *Service) SyncBuiltins(ctx context.Context) {
	back, err := assembly.SyncBuiltins(ctx, s.Catalog, s.DB, s.Config.DataDir)
	if err != nil {
		s.log.Warn("reading the built-in plugins' state", "err", err)
		return
	}
	for _, p := range back {
		s.told.Delete(p)
		s.log.Info("a built-in plugin is connected; its tools are offered", "plugin", p)
	}
}

// renew starts a renewed sign-in for the owner's Renew button: the link,
// and wait, which brings the plugin (and each Google plugin a shared
// Google sign-in serves) back once it succeeds.
func (a *Env) Renew(ctx context.Context, s *Service, plugin string) (string, func(context.Context) error, error) {
	if s.SignIn == nil {
		return "", nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "the keyring cannot be opened, so no sign-in can be kept (see jarvisbot's log)")
	}
	if err := s.shipped.load(); err != nil {
		return "", nil, err
	}
	sp, ok := s.shipped.shop[plugin]
	if !ok {
		return "", nil, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "the store has no plugin %q", plugin)
	}
	scopes := ScopesOf(s.shipped.shop)
	grant, want, back := plugin, scopes[plugin], []string{plugin}
	var link string
	var err error
	switch {
	case builtins.Has(plugin):
		env := a.BuiltinEnv(ctx, s.Config, s.SignIn)
		prov, perr := env.Provider(plugin)
		if perr != nil {
			return "", nil, perr
		}
		uses, shared, err := env.UsesShared(ctx, plugin)
		if err != nil {
			return "", nil, err
		}
		if uses {
			grant = builtins.SharedGoogle
			back, want = builtins.GoogleUnion(scopes, shared)
		}
		link, err = s.SignIn.BeginProvider(ctx, grant, prov, want)
	case sp.Plugin.NeedsSignIn():
		link, err = s.SignIn.Begin(ctx, plugin, sp.Plugin.SignInURL(), want)
	default:
		return "", nil, jarvisbot.Errorf(jarvisbot.EINVALID, "%s has no browser sign-in to renew (%s)", plugin, sp.Plugin.Ext.SignIn.Text())
	}
	if err != nil {
		return "", nil, err
	}
	wait := func(ctx context.Context) error { return s.renewed(ctx, grant, back) }
	return link, wait, nil
}

// renewed waits for the sign-in kept as grant, then brings back each
// installed plugin of back: connected in the store, its tools offered
// again, and a later expiry told again.
func (s *Service) renewed(ctx context.Context, grant string, back []string) error {
	if err := s.SignIn.Wait(ctx, grant); err != nil {
		return err
	}
	installed, err := s.DB.InstalledPlugins(ctx)
	if err != nil {
		return err
	}
	for _, ip := range installed {
		if !slices.Contains(back, ip.Name) {
			continue
		}
		if err := signin.Connected(ctx, s.DB, ip.Name); err != nil {
			return err
		}
		if builtins.Has(ip.Name) {
			_ = s.Catalog.SetConnected(ip.Name, true) // a plugin not in the catalog joins at the next start
		}
		s.told.Delete(ip.Name)
	}
	return nil
}
