package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/plugins/builtins"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
	"github.com/jarvisbot/jarvisbot/store"
)

// The plugin store's use cases (P1, P2, P6): list, show, validate and
// call a plugin. Installing and removing are in plugininstall.go,
// signing in in pluginsignin.go. The command line and the dashboard call these and
// render what they return.

// ErrFolderFlags refuses --yes and --trusted for anything but installing
// a plugin folder.
var ErrFolderFlags = jarvisbot.Errorf(jarvisbot.EINVALID, "--yes and --trusted are for installing a plugin folder (jarvisbot plugins install DIR); the plugins that ship with jarvisbot need neither")

// ErrAllGoogle refuses --all-google for anything but installing a Google
// plugin.
var ErrAllGoogle = jarvisbot.Errorf(jarvisbot.EINVALID, "--all-google is for installing a Google plugin (google-calendar, gmail, google-drive)")

// pluginCollection reads the plugin store, shipped and local, each time:
// a plugin folder installed or removed by another process shows at once.
// Plugins that cannot be read are reported to the Env's Stderr.
func (in *Installation) pluginCollection() (collection.Collection, error) {
	return collection.Load(in.Config.DataDir, in.Env.Stderr)
}

// storePlugin is the store's plugin of that name, with the whole store.
func (in *Installation) storePlugin(name string) (collection.Collection, collection.Plugin, error) {
	all, err := in.pluginCollection()
	if err != nil {
		return nil, collection.Plugin{}, err
	}
	sp, ok := all[name]
	if !ok {
		return nil, sp, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "the store has no plugin %q (see jarvisbot plugins list)", name)
	}
	return all, sp, nil
}

// PluginEntry is one plugin of the store in the list, with where the
// owner stands with it.
type PluginEntry struct {
	plugins.Listed
	Plugin *plugins.Plugin
	// Tools is how many tools a built-in plugin brings.
	Tools int
	// SignInMissing: installed, but its sign-in never completed (skipped,
	// or not finished).
	SignInMissing bool
}

// PluginList is the plugin store (`plugins list`).
type PluginList struct {
	Entries   []PluginEntry // sorted by name
	Installed int           // how many of them are installed
}

// Rows are the entries as the list's JSON has them.
func (l PluginList) Rows() []plugins.Listed {
	rows := make([]plugins.Listed, 0, len(l.Entries))
	for _, e := range l.Entries {
		rows = append(rows, e.Listed)
	}
	return rows
}

// Plugins lists the plugin store with the state of each plugin (P2).
func (in *Installation) Plugins(ctx context.Context) (PluginList, error) {
	all, err := in.pluginCollection()
	if err != nil {
		return PluginList{}, err
	}
	installed, err := in.DB.InstalledPlugins(ctx)
	if err != nil {
		return PluginList{}, err
	}
	list := make(map[string]*plugins.Plugin, len(all))
	for name, sp := range all {
		list[name] = sp.Plugin
	}
	out := PluginList{Installed: len(installed)}
	for _, r := range plugins.List(list, installed) {
		out.Entries = append(out.Entries, entryOf(r, all[r.Name].Plugin))
	}
	return out, nil
}

// entryOf is a row of plugins.List with what the plugin brings.
func entryOf(r plugins.Listed, p *plugins.Plugin) PluginEntry {
	return PluginEntry{Listed: r, Plugin: p, Tools: len(builtins.Capabilities(r.Name, true)),
		SignInMissing: r.State == string(store.PluginInstalled) && (builtins.Has(r.Name) || p.NeedsSignIn())}
}

// PluginFacts are what `plugins show` says of a plugin of the store, and
// what the dashboard's page of it shows. Text from a local plugin is from
// outside: every control character in it is an escape already (X2).
type PluginFacts struct {
	Entry                               PluginEntry
	Name, Display, Version, Description string
	// State is a store.PluginState, or "not installed"; Since is when it
	// was installed.
	State    string
	Since    time.Time
	From     string // where a local plugin came from; "" for a shipped one
	SignIn   string // how the owner signs in, in words
	Builtin  bool
	Channel  bool
	Tools    []catalog.Capability // a built-in plugin's, with their tiers
	Servers  []PluginServer
	Homepage string
	Manual   string // the manual's skill name
	Tier     string // the manual's tier; "" for the default
	Words    []string
	WordsDE  []string
	Body     string
	// Google: one Google sign-in may serve every Google plugin.
	Google bool
	// Renewable: it has a sign-in that can be renewed.
	Renewable bool
}

// PluginServer is one MCP server a plugin brings.
type PluginServer struct {
	ID, Type string
	Target   string // its command line or address, control characters visible
}

// Plugin is one plugin of the store in full, with where the owner stands
// with it (`plugins show`).
func (in *Installation) Plugin(ctx context.Context, name string) (PluginFacts, error) {
	_, sp, err := in.storePlugin(name)
	if err != nil {
		return PluginFacts{}, err
	}
	f := pluginOf(sp)
	f.State = "not installed"
	if ip, err := in.DB.InstalledPlugin(ctx, f.Name); err == nil {
		f.State, f.Since = string(ip.State), ip.InstalledAt
	} else if jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		return f, err
	}
	if sp.Local != "" {
		f.From = "your plugin folder, copied to " + sp.Local
		if rec, err := in.DB.SkillRecord(ctx, "skill:"+f.Name); err == nil {
			f.From = rec.Source
		} else if jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
			return f, err
		}
		f.From = visible.Text(f.From)
	}
	installed, err := in.DB.InstalledPlugins(ctx)
	if err != nil {
		return f, err
	}
	rows := plugins.List(map[string]*plugins.Plugin{name: sp.Plugin}, installed)
	f.Entry = entryOf(rows[0], sp.Plugin)
	return f, nil
}

// pluginOf are the facts of sp that do not depend on the owner.
func pluginOf(sp collection.Plugin) PluginFacts {
	p, m := sp.Plugin, sp.Manual
	f := PluginFacts{
		Name: p.Manifest.Name, Display: visible.Text(p.DisplayName()), Version: visible.Text(p.Manifest.Version),
		Description: visible.Text(p.Manifest.Description), SignIn: p.Ext.SignIn.Text(),
		Builtin: p.Ext.Builtin, Channel: p.Ext.Channel, Homepage: visible.Text(p.Manifest.Homepage),
		Manual: m.Name, Tier: string(m.Tier), Body: visible.Text(m.Body),
		Google:    builtins.ProviderOf(p.Manifest.Name) == builtins.Google,
		Renewable: builtins.Has(p.Manifest.Name) || p.NeedsSignIn(),
	}
	for _, w := range m.Words {
		f.Words = append(f.Words, visible.Text(w))
	}
	for _, w := range m.WordsDE {
		f.WordsDE = append(f.WordsDE, visible.Text(w))
	}
	if p.Ext.Builtin {
		f.Tools = builtins.Capabilities(p.Manifest.Name, true)
	}
	if p.MCP != nil {
		for _, id := range slices.Sorted(maps.Keys(p.MCP.Servers)) {
			srv := p.MCP.Servers[id]
			target := CommandLine(srv)
			if srv.URL != "" {
				target = visible.Text(srv.URL)
			}
			f.Servers = append(f.Servers, PluginServer{ID: id, Type: srv.Type, Target: target})
		}
	}
	return f
}

// PluginTools are the tools a plugin brings with the tiers they run at:
// a built-in plugin's own; else those of its servers in the running
// catalog, or, when none is up (or nothing runs), those its servers
// listed last. The running catalog has the owner's tiers (tiers: in the
// config).
func (in *Installation) PluginTools(ctx context.Context, f PluginFacts) ([]catalog.Capability, error) {
	var v *catalog.View
	if in.Live != nil {
		v = in.Live.Catalog.View()
	}
	tools := f.Tools
	if !f.Builtin && v != nil {
		tools = serversTools(v, f.Servers)
	}
	if !f.Builtin && len(tools) == 0 {
		var err error
		if tools, err = in.cachedTools(ctx, f.Name); err != nil {
			return nil, err
		}
	}
	out := make([]catalog.Capability, 0, len(tools))
	for _, cp := range tools {
		if v != nil {
			if live, ok := v.Capability(cp.ID); ok {
				cp.Tier = live.Tier
			}
		}
		out = append(out, cp)
	}
	return out, nil
}

// serversTools are the tools the running catalog holds of servers.
func serversTools(v *catalog.View, servers []PluginServer) []catalog.Capability {
	var out []catalog.Capability
	for _, cp := range v.Capabilities() {
		for _, s := range servers {
			if cp.Kind == catalog.KindMCP && cp.Server == s.ID {
				out = append(out, cp)
			}
		}
	}
	return out
}

// cachedTools are the tools the plugin's MCP servers listed last, with
// the tiers the catalog gives them.
func (in *Installation) cachedTools(ctx context.Context, plugin string) ([]catalog.Capability, error) {
	servers, err := in.DB.MCPServers(ctx)
	if err != nil {
		return nil, err
	}
	c := catalog.New()
	for _, s := range servers {
		if s.Plugin != plugin || len(s.Tools) == 0 {
			continue
		}
		tools, err := catalog.ReadStoredList(s.Tools)
		if err != nil {
			continue // an unreadable cache is listed again when the server connects
		}
		if c.SetServer(catalog.Server{ID: s.Name, Plugin: plugin, Trusted: s.Trusted, Connected: true}, tools) != nil {
			continue
		}
	}
	return c.View().Capabilities(), nil
}

// ValidatePlugin checks a plugin folder (P1): every problem, and an
// EINVALID error when any of them is not a warning.
func ValidatePlugin(dir string) ([]plugins.Problem, error) {
	problems := plugins.Validate(dir)
	errs := 0
	for _, p := range problems {
		if !p.Warning {
			errs++
		}
	}
	if errs > 0 {
		return problems, jarvisbot.Errorf(jarvisbot.EINVALID, "%s is not a valid plugin: %d problem(s)", dir, errs)
	}
	return problems, nil
}

// PluginCall is what one tool of a built-in plugin answered.
type PluginCall struct {
	Text string
	// Warnings are what went wrong beside the call (its plugin's state
	// that could not be recorded).
	Warnings []string
}

// CallPlugin runs one tool of an installed built-in plugin for the owner
// (`plugins call`), as `mcp call` does for a server: the owner's own
// request, so no approval is asked. A call that finds the sign-in
// unusable puts the plugin under Needs attention (P4).
func (in *Installation) CallPlugin(ctx context.Context, name, tool, argJSON string) (PluginCall, error) {
	var res PluginCall
	all, err := in.pluginCollection()
	if err != nil {
		return res, err
	}
	if !builtins.Has(name) {
		return res, jarvisbot.Errorf(jarvisbot.EINVALID, "%s has no built-in tools; for a plugin's MCP server use jarvisbot mcp call SERVER TOOL", name)
	}
	ip, err := in.DB.InstalledPlugin(ctx, name)
	if err != nil {
		return res, jarvisbot.Errorf(jarvisbot.ErrorCode(err), "%s is not installed: run jarvisbot plugins install %s", name, name)
	}
	if !json.Valid([]byte(argJSON)) {
		return res, jarvisbot.Errorf(jarvisbot.EINVALID, `the arguments are not JSON: give an object such as '{"query": "lunch"}'`)
	}
	var cp *catalog.Capability
	var names []string
	for _, c := range builtins.Capabilities(name, true) {
		names = append(names, c.Name)
		if c.Name == tool {
			cp = &c
		}
	}
	if cp == nil {
		return res, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "%s has no tool %q; it has %s", name, tool, quoteNames(names))
	}
	kr, err := in.Env.OpenSecrets(in.Config)
	if err != nil {
		return res, err
	}
	mgr := signin.NewManager(signin.Options{Keyring: kr, LockDir: SigninLockDir(in.Config)})
	defer func() { _ = mgr.Close() }() // it starts no listener, so closing has nothing to report
	scopes := ScopesOf(all)
	r := builtins.Runner{Env: in.Env.BuiltinEnv(ctx, in.Config, mgr), Scopes: func(p string) []string { return scopes[p] }}
	out, err := r.Run(ctx, catalog.Call{Cap: cp, Args: json.RawMessage(argJSON), Agent: "owner"})
	if errors.Is(err, signin.ErrNeedsAttention) && ip.State != store.PluginNeedsAttention {
		if serr := in.DB.SetPluginState(ctx, name, store.PluginNeedsAttention); serr != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("recording that %s needs attention: %v", name, serr))
		}
	}
	if err != nil {
		return res, err
	}
	res.Text = out.Text
	return res, nil
}

// isFolderRef tells a plugin folder from a name in the store: a path, or
// a folder that is not the name of a plugin in the store.
func isFolderRef(ref string, all collection.Collection) bool {
	if strings.ContainsAny(ref, `/\`) || ref == "." || ref == ".." {
		return true
	}
	if _, ok := all[ref]; ok {
		return false
	}
	fi, err := os.Stat(ref)
	return err == nil && fi.IsDir()
}

// CommandLine is the command line of a plugin's MCP server as the owner
// reads it: each argument as ShowArg writes it.
func CommandLine(srv plugins.MCPServer) string {
	line := []string{ShowArg(srv.Command)}
	for _, a := range srv.Args {
		line = append(line, ShowArg(a))
	}
	return strings.Join(line, " ")
}

// ShowArg writes one argument of a command line so that where it starts
// and ends is plain: as it is when it holds only ordinary characters, else
// in double quotes with backslashes, quotes and controls escaped.
func ShowArg(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%_+=:,./-${}", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	q := strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`)
	return `"` + visible.Text(q) + `"`
}

// quoteList quotes the first n words: "repo", "pull request" and 3 more.
func quoteList(words []string, n int) string {
	var q []string
	for i, w := range words {
		if i == n {
			q = append(q, fmt.Sprintf("and %d more", len(words)-n))
			break
		}
		q = append(q, fmt.Sprintf("%q", w))
	}
	if len(q) == 0 {
		return "its name"
	}
	return strings.Join(q, ", ")
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
