package app

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/internal/secretref"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/plugins/builtins"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/plugins/local"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
)

// Installing, signing in to and removing a plugin (P1, P3, P4, P6, X1,
// X3): the same steps from the command line and the dashboard. Each step
// is a PluginEvent given to the caller's progress func, which renders it;
// values the owner must give come through InstallOptions.Ask. Inside
// serve (Installation.Live) what changed takes effect at once.

// PluginEventKind says what a step of an install, sign-in or removal did.
type PluginEventKind int

const (
	// PluginInstalled: the plugin is recorded and its manual is on.
	PluginInstalled PluginEventKind = iota
	// PluginServerKept: the owner has an MCP server of that name already.
	PluginServerKept
	// PluginServerOn: a server of the plugin is recorded and on.
	PluginServerOn
	// PluginServerOff: a server is recorded, off until the sign-in.
	PluginServerOff
	// PluginNoClient: a built-in plugin's provider has no client set up
	// yet; Setup says how to set one up.
	PluginNoClient
	// PluginSharedGoogle: the shared Google sign-in already grants what
	// the plugin needs.
	PluginSharedGoogle
	// PluginSignInLink: the owner signs in to Who by opening URL; the
	// sign-in waits for the return.
	PluginSignInLink
	// PluginSignedIn: the sign-in to Who is kept.
	PluginSignedIn
	// PluginConnectNote: what installing did not do yet (Note).
	PluginConnectNote
	// PluginSettingsMissing: the plugin needs Settings nobody can be
	// asked for now.
	PluginSettingsMissing
	// PluginNoValue: the owner gave no value for Settings[0].
	PluginNoValue
	// PluginSettingsKept: the values of Settings are in the keyring.
	PluginSettingsKept
	// PluginSettingsOn: with its values known, the plugin's servers are on.
	PluginSettingsOn
	// PluginRenewLink: a renewed sign-in (the Renew button) waits at URL.
	PluginRenewLink
	// PluginRenewed: the renewed sign-in is back.
	PluginRenewed
)

// PluginEvent is one step of an install, a sign-in or a removal.
type PluginEvent struct {
	Kind    PluginEventKind
	Plugin  string // the plugin's name
	Display string // its display name
	// Who is whom the sign-in is with: a provider, "Google for Gmail and
	// Google Drive", or the plugin.
	Who      string
	URL      string // the sign-in link
	Words    string // the words that route to the manual, quoted
	Server   plugins.ServerAdded
	Settings []string // the names of settings
	Setup    string   // what to set up first
	Note     string
	Builtin  bool // the sign-in serves built-in tools
}

// String is the step in the words every door shows; a door that shows a
// link its own way renders PluginSignInLink itself.
func (e PluginEvent) String() string {
	switch e.Kind {
	case PluginInstalled:
		return fmt.Sprintf("Installed %s. Its manual (skill:%s) is on: %s now route to it.", visible.Text(e.Display), e.Plugin, visible.Text(e.Words))
	case PluginServerKept:
		return fmt.Sprintf("You already have an MCP server named %s; it is kept as it is.", e.Server.ID)
	case PluginServerOn:
		return fmt.Sprintf("Its MCP server %s (%s) is on; jarvisbot connects to it when the service runs (check it with jarvisbot mcp list --check).", e.Server.ID, visible.Text(e.Server.Server.URL+e.Server.Server.Command))
	case PluginServerOff:
		return fmt.Sprintf("Its MCP server %s (%s) is recorded, off until you sign in.", e.Server.ID, visible.Text(e.Server.Server.URL+e.Server.Server.Command))
	case PluginNoClient:
		return fmt.Sprintf("To use its tools, %s.\nThen sign in with: jarvisbot plugins signin %s", e.Setup, e.Plugin)
	case PluginSharedGoogle:
		return fmt.Sprintf("%s uses your Google sign-in, which already grants what it needs. Its tools join your agents while the service runs.", e.Display)
	case PluginSignInLink:
		return fmt.Sprintf("Sign in to %s in your browser.", e.Who)
	case PluginSignedIn:
		if e.Builtin {
			return fmt.Sprintf("Signed in to %s. The sign-in is kept in the keyring; the tools join your agents while the service runs.", e.Who)
		}
		return fmt.Sprintf("Signed in to %s. The sign-in is kept in the keyring; its tools join your agents while the service runs.", e.Who)
	case PluginConnectNote:
		return e.Note
	case PluginSettingsMissing:
		return fmt.Sprintf("%s needs %s: set each with jarvisbot secrets set NAME, then run jarvisbot plugins signin %s.", e.Display, strings.Join(e.Settings, " and "), e.Plugin)
	case PluginNoValue:
		return fmt.Sprintf("No value given. %s stays installed and off; set it with jarvisbot secrets set %s, then run jarvisbot plugins signin %s.", e.Display, e.Settings[0], e.Plugin)
	case PluginSettingsKept:
		return fmt.Sprintf("Kept %s in the keyring.", strings.Join(e.Settings, " and "))
	case PluginSettingsOn:
		return fmt.Sprintf("%s is on; jarvisbot connects to it when the service runs (check it with jarvisbot mcp list --check).", e.Display)
	case PluginRenewLink:
		return fmt.Sprintf("Open this link to sign in to %s again.", e.Plugin)
	case PluginRenewed:
		return fmt.Sprintf("Signed in to %s again: its tools are back.", e.Plugin)
	}
	return ""
}

// PluginSetting is a value a plugin asks for at install (a host, a
// token), kept in the keyring.
type PluginSetting struct {
	Plugin string // the display name of the plugin that asks
	Name   string // the secret's name, such as HOME_ASSISTANT_TOKEN
	Hint   string // what it is and where to find it
	Secret bool   // a credential: whoever asks hides what is typed
}

// InstallOptions are how a plugin is installed.
type InstallOptions struct {
	NoSignIn  bool // sign in later
	AllGoogle bool // one Google sign-in for every Google plugin
	// Yes (the caller installs without asking) and Trusted (honour every
	// field of its skills) are for a plugin folder only: given for a
	// plugin of the store, the install is refused (ErrFolderFlags).
	Yes, Trusted bool
	// Consent shows a staged plugin folder with everything it brings and
	// says whether to install it; nil installs it.
	Consent func(local.Staged) (bool, error)
	// Ask gives the value of a setting the plugin needs; "" when none was
	// given. Nil when nobody can be asked: the owner is told how to set it.
	Ask func(PluginSetting) (string, error)
}

// InstallResult is what an install did.
type InstallResult struct {
	Name, Display string
	// Declined: the owner said no to installing the plugin folder.
	Declined bool
}

// pluginWork is one install, sign-in or removal of a plugin of the store.
type pluginWork struct {
	in       *Installation
	all      collection.Collection
	progress func(PluginEvent)
	ask      func(PluginSetting) (string, error)
}

func (w pluginWork) tell(e PluginEvent) {
	if w.progress != nil {
		w.progress(e)
	}
}

// InstallPlugin installs a plugin of the store by name, or a plugin folder
// of the owner's own (a path, or a folder that is no plugin's name): it is
// recorded, its manual turned on and its servers recorded, and it signs in
// when it needs to, unless o.NoSignIn.
func (in *Installation) InstallPlugin(ctx context.Context, ref string, o InstallOptions, progress func(PluginEvent)) (InstallResult, error) {
	all, err := in.pluginCollection()
	if err != nil {
		return InstallResult{}, err
	}
	w := pluginWork{in: in, all: all, progress: progress, ask: o.Ask}
	if isFolderRef(ref, all) {
		sp, err := in.installFolder(ctx, ref, all, o)
		if err != nil || sp == nil {
			return InstallResult{Declined: err == nil}, err
		}
		w.all = maps.Clone(all)
		w.all[sp.Plugin.Manifest.Name] = *sp
		return w.installTakenUp(ctx, *sp, InstallOptions{NoSignIn: o.NoSignIn})
	}
	if o.Yes || o.Trusted {
		return InstallResult{}, ErrFolderFlags
	}
	sp, ok := all[ref]
	if !ok {
		return InstallResult{}, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "the store has no plugin %q (see jarvisbot plugins list)", ref)
	}
	if o.AllGoogle && builtins.ProviderOf(sp.Plugin.Manifest.Name) != builtins.Google {
		return InstallResult{}, ErrAllGoogle
	}
	return w.installTakenUp(ctx, sp, o)
}

// installFolder stages, shows and, on consent, installs the plugin
// folder src (P1, S6, X1, X2). It returns the installed plugin, or nil
// when the owner said no.
func (in *Installation) installFolder(ctx context.Context, src string, all collection.Collection, o InstallOptions) (*collection.Plugin, error) {
	consent := o.Consent
	if consent == nil {
		consent = func(local.Staged) (bool, error) { return true, nil }
	}
	li := local.Installer{
		Dir: collection.LocalDir(in.Config.DataDir), Store: in.DB, Trusted: o.Trusted,
		Shipped: func(name string) (*plugins.Plugin, bool) {
			sp, ok := all[name]
			return sp.Plugin, ok && sp.Local == ""
		},
		Manual:  collection.ReadManual,
		Consent: consent,
	}
	done, err := li.Install(ctx, src)
	if err != nil || done == nil {
		return nil, err
	}
	return &collection.Plugin{Plugin: done.Plugin, Manual: done.Manual, Local: done.Dir}, nil
}

// installTakenUp installs sp and, inside serve, brings what changed into
// the running service whatever came of the sign-in.
func (w pluginWork) installTakenUp(ctx context.Context, sp collection.Plugin, o InstallOptions) (InstallResult, error) {
	res := InstallResult{Name: sp.Plugin.Manifest.Name, Display: sp.Plugin.DisplayName()}
	err := w.install(ctx, sp, o)
	if w.in.Live != nil {
		w.in.Live.takeUp(ctx, w.all, res.Name)
	}
	return res, err
}

// install records a plugin of the store as installed, turns its manual
// on and its servers (plugins.Install, AddServers), and signs in when it
// needs to.
func (w pluginWork) install(ctx context.Context, sp collection.Plugin, o InstallOptions) error {
	p := sp.Plugin
	if err := plugins.Install(ctx, w.in.DB, p); err != nil {
		return err
	}
	words := "its name and description"
	if len(sp.Manual.Words) > 0 {
		words = quoteList(sp.Manual.Words, 4)
	}
	w.tell(PluginEvent{Kind: PluginInstalled, Plugin: p.Manifest.Name, Display: p.DisplayName(), Words: words})
	added, err := plugins.AddServers(ctx, w.in.DB, p)
	for _, s := range added {
		e := PluginEvent{Kind: PluginServerOff, Plugin: p.Manifest.Name, Display: p.DisplayName(), Server: s}
		switch {
		case s.Kept:
			e.Kind = PluginServerKept
		case s.On:
			e.Kind = PluginServerOn
		}
		w.tell(e)
	}
	if err != nil {
		return err
	}
	if builtins.Has(p.Manifest.Name) && !o.NoSignIn {
		return w.signInBuiltin(ctx, p, o.AllGoogle)
	}
	if p.NeedsSignIn() && !o.NoSignIn {
		return w.signIn(ctx, p)
	}
	if si := p.Ext.SignIn; si != nil && si.Method == plugins.SignInAPIKey && len(added) > 0 && !o.NoSignIn {
		return w.settingsSignIn(ctx, p)
	}
	w.tell(PluginEvent{Kind: PluginConnectNote, Plugin: p.Manifest.Name, Display: p.DisplayName(), Note: p.ConnectNote()})
	return nil
}

// takeUp brings what an install or a sign-in changed into the running
// service, as a restart would: the plugin's servers that are on now and
// not running yet start (through its sign-in when it has one), and
// built-in plugins join the catalog.
func (s *Service) takeUp(ctx context.Context, all collection.Collection, plugin string) {
	servers, err := s.DB.MCPServers(ctx)
	if err != nil {
		s.Log.Warn("reading the MCP servers after an install", "plugin", plugin, "err", err)
	}
	running := map[string]bool{}
	for _, st := range s.Host.Status() {
		running[st.Name] = true
	}
	for _, srv := range servers {
		if srv.Plugin != plugin || !srv.Enabled || running[srv.Name] {
			continue
		}
		hs := mcphost.FromStored(srv)
		if all.SignsIn(plugin) && s.SignIn != nil {
			hs = s.SignIn.Through(hs)
		}
		if err := s.Host.Start(s.Work, hs); err != nil {
			s.Log.Warn("MCP server not started", "server", srv.Name, "err", err)
		}
	}
	s.Told.Delete(plugin)
	s.SyncBuiltins(ctx)
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

// PluginRemoved is what removing a plugin did.
type PluginRemoved struct {
	Display string
	Local   string // the copy of a local plugin that was deleted; "" for a shipped one
}

// String says what the removal did, in the words every door shows.
func (r PluginRemoved) String() string {
	if r.Local != "" {
		return fmt.Sprintf("Removed %s and its copy in %s: its manual's words no longer route to it, and its sign-in is forgotten. To install it again, install its folder.", visible.Text(r.Display), r.Local)
	}
	return fmt.Sprintf("Removed %s: its manual's words no longer route to it, and its sign-in is forgotten.", r.Display)
}

// RemovePlugin uninstalls a plugin: its manual's words and its servers
// go, its sign-in is forgotten, and a local plugin's copy in the data
// directory is deleted (the folder it was installed from is not touched).
// Inside serve, its servers stop and its tools leave at once.
func (in *Installation) RemovePlugin(ctx context.Context, name string) (PluginRemoved, error) {
	all, sp, err := in.storePlugin(name)
	if err != nil {
		return PluginRemoved{}, err
	}
	if in.Live == nil {
		return pluginWork{in: in, all: all}.remove(ctx, sp)
	}
	servers, err := in.DB.MCPServers(ctx)
	if err != nil {
		return PluginRemoved{}, err
	}
	res, err := pluginWork{in: in, all: all}.remove(ctx, sp)
	// Whatever the keyring said, what was removed leaves the running
	// service: the plugin's servers stop, its built-in tools go.
	for _, srv := range servers {
		if srv.Plugin == name {
			in.Live.Host.Stop(srv.Name)
		}
	}
	in.Live.SyncBuiltins(ctx)
	return res, err
}

func (w pluginWork) remove(ctx context.Context, sp collection.Plugin) (PluginRemoved, error) {
	name := sp.Plugin.Manifest.Name
	if err := plugins.Uninstall(ctx, w.in.DB, name, sp.Local != ""); err != nil {
		return PluginRemoved{}, err
	}
	// A keyring that fails does not keep the plugin installed: the rest
	// goes, and the removal fails saying what stays and how to remove it.
	var kept error
	switch {
	case builtins.Has(name):
		kept = w.forgetBuiltin(ctx, name)
	case sp.Plugin.NeedsSignIn():
		kept = w.forgetSignIn(ctx, name)
	}
	if sp.Local != "" {
		if _, err := collection.LocalDir(w.in.Config.DataDir).Remove(filepath.Base(sp.Local)); err != nil {
			return PluginRemoved{}, err
		}
		if err := w.in.DB.ForgetSkill(ctx, "skill:"+name); err != nil {
			return PluginRemoved{}, err
		}
	}
	if kept != nil {
		return PluginRemoved{}, jarvisbot.Errorf(jarvisbot.ErrorCode(kept), "removed %s, but its sign-in stays in the keyring: %w; once the keyring works again, delete it with jarvisbot secrets delete %s", name, kept, signin.KeyName(name))
	}
	return PluginRemoved{Display: sp.Plugin.DisplayName(), Local: sp.Local}, nil
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
			out = append(out, PluginSetting{Plugin: p.DisplayName(), Name: n, Hint: settingHint(p.Manifest.Name, n), Secret: plugins.LiteralSecret(n, "value")})
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
