package app

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/plugins/builtins"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/plugins/local"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
)

// Installing and removing a plugin (P1, P3, P4, P6, X1, X3): the same
// steps from the command line and the dashboard. Each step is a
// PluginEvent given to the caller's progress func, which renders it;
// values the owner must give come through InstallOptions.Ask. Inside
// serve (Installation.Live) what changed takes effect at once. The
// sign-ins an install runs are in pluginsignin.go.

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
		s.log.Warn("reading the MCP servers after an install", "plugin", plugin, "err", err)
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
		if err := s.Host.Start(s.work, hs); err != nil {
			s.log.Warn("MCP server not started", "server", srv.Name, "err", err)
		}
	}
	s.told.Delete(plugin)
	s.SyncBuiltins(ctx)
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
