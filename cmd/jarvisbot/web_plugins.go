package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/secretref"
	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/plugins/builtins"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/web"
)

// webPlugins is the dashboard's Plugins tab over this session: the
// commands' own code (pluginWork, a.renew) run on the service's store and
// sign-in manager, so an install or removal takes effect at once.
func (a *app) webPlugins(cfg config.Config, s *session) web.Plugins {
	return &pluginsTab{a: a, s: s, runs: map[string]*pluginRun{}}
}

// pluginsTab implements web.Plugins. An install that signs in runs in the
// background on the service (it ends with it); runs keeps the latest of
// each plugin for its progress page.
type pluginsTab struct {
	a *app
	s *session

	mu   sync.Mutex
	runs map[string]*pluginRun
}

var _ web.Plugins = (*pluginsTab)(nil)

// collection reads the plugin store as the commands do, each time: a
// plugin folder installed or removed with the command line shows at once.
func (t *pluginsTab) collection() (collection.Collection, error) {
	return collection.Load(t.s.cfg.DataDir, t.s.warn)
}

// plugin is the store's plugin of that name, in the commands' words when
// there is none.
func (t *pluginsTab) plugin(name string) (collection.Collection, collection.Plugin, error) {
	all, err := t.collection()
	if err != nil {
		return nil, collection.Plugin{}, err
	}
	sp, ok := all[name]
	if !ok {
		return nil, sp, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "the store has no plugin %q (see jarvisbot plugins list)", name)
	}
	return all, sp, nil
}

func (t *pluginsTab) List(ctx context.Context) ([]web.PluginRow, error) {
	all, err := t.collection()
	if err != nil {
		return nil, err
	}
	installed, err := t.s.db.InstalledPlugins(ctx)
	if err != nil {
		return nil, err
	}
	list := make(map[string]*plugins.Plugin, len(all))
	for name, sp := range all {
		list[name] = sp.Plugin
	}
	var rows []web.PluginRow
	for _, r := range plugins.List(list, installed) {
		rows = append(rows, t.row(ctx, r, all[r.Name].Plugin))
	}
	return rows, nil
}

// row is one line of `plugins list`, with what the plugin brings.
func (t *pluginsTab) row(ctx context.Context, r plugins.Listed, p *plugins.Plugin) web.PluginRow {
	row := web.PluginRow{Name: r.Name, DisplayName: r.DisplayName, Description: r.Description, State: r.State,
		Installed: r.State != plugins.NotInstalled, Attention: r.State == string(store.PluginNeedsAttention)}
	switch r.Kind {
	case "mcp":
		row.Kind, row.Brings = "MCP server", "MCP server "+strings.Join(r.MCP, ", ")
	case "channel":
		row.Kind, row.Brings = "chat channel", "a chat channel to talk to jarvisbot; no tools"
	default:
		row.Kind = "built in"
		row.Brings = fmt.Sprintf("%d tools built into jarvisbot", len(builtins.Capabilities(r.Name, true)))
	}
	row.AsksValues = len(t.settings(ctx, p)) > 0
	row.SignInMissing = r.State == string(store.PluginInstalled) && (builtins.Has(r.Name) || p.NeedsSignIn())
	return row
}

// settings are the values installing p asks for that are not known yet,
// the same the command line asks for on stdin.
func (t *pluginsTab) settings(ctx context.Context, p *plugins.Plugin) []web.Setting {
	if si := p.Ext.SignIn; si == nil || si.Method != plugins.SignInAPIKey || p.MCP == nil {
		return nil
	}
	var out []web.Setting
	for _, n := range t.a.missingSettings(ctx, t.s.cfg, p) {
		// A value under a secret's name ("…_TOKEN") would be a literal
		// credential: its field hides what is typed.
		out = append(out, web.Setting{Name: n, Hint: settingHint(p.Manifest.Name, n), Secret: secretref.LiteralSecret(n, "value")})
	}
	return out
}

func (t *pluginsTab) Plugin(ctx context.Context, name string) (web.PluginPage, error) {
	_, sp, err := t.plugin(name)
	if err != nil {
		return web.PluginPage{}, err
	}
	f, err := storePluginFacts(ctx, t.s.db, sp)
	if err != nil {
		return web.PluginPage{}, err
	}
	installed, err := t.s.db.InstalledPlugins(ctx)
	if err != nil {
		return web.PluginPage{}, err
	}
	rows := plugins.List(map[string]*plugins.Plugin{name: sp.Plugin}, installed)
	pg := web.PluginPage{
		PluginRow: t.row(ctx, rows[0], sp.Plugin),
		Version:   f.Version, From: f.From, SignIn: f.SignIn, Homepage: f.Homepage,
		Manual: "skill:" + f.Manual, Tier: f.Tier, Words: f.Words, WordsDE: f.WordsDE, Text: f.Body,
		Google:    builtins.ProviderOf(name) == builtins.Google,
		Renewable: builtins.Has(name) || sp.Plugin.NeedsSignIn(),
	}
	pg.DisplayName, pg.Description = f.Display, f.Description
	if pg.Tier == "" {
		pg.Tier = string(catalog.TierMonitor)
	}
	if !f.Since.IsZero() {
		pg.Since = f.Since.Local().Format("2006-01-02 15:04")
	}
	if !pg.Installed {
		pg.Settings = t.settings(ctx, sp.Plugin)
	}
	for _, s := range f.Servers {
		pg.Servers = append(pg.Servers, web.PluginServer{ID: s.ID, Type: s.Type, Target: s.Target})
	}
	// The running catalog has the owner's tiers (tiers: in the config),
	// and the tools of the plugin's servers that are up.
	v := t.s.catalog.View()
	tools := f.Tools
	if !f.Builtin {
		tools = serversTools(v, f.Servers)
	}
	if !f.Builtin && len(tools) == 0 {
		if tools, err = t.serverTools(ctx, name); err != nil {
			return pg, err
		}
	}
	for _, cp := range tools {
		if live, ok := v.Capability(cp.ID); ok {
			cp.Tier = live.Tier
		}
		pg.Tools = append(pg.Tools, web.PluginTool{ID: cp.ID, Tier: string(cp.Tier), Description: firstSentence(cp.Description)})
	}
	return pg, nil
}

// serversTools are the tools the running catalog holds of servers.
func serversTools(v *catalog.View, servers []serverFacts) []catalog.Capability {
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

// serverTools are the tools the plugin's MCP servers listed last, with
// the tiers the catalog gives them.
func (t *pluginsTab) serverTools(ctx context.Context, plugin string) ([]catalog.Capability, error) {
	servers, err := t.s.db.MCPServers(ctx)
	if err != nil {
		return nil, err
	}
	c := catalog.New()
	for _, s := range servers {
		if s.Plugin != plugin || len(s.Tools) == 0 {
			continue
		}
		var tools []catalog.SnapshotTool
		if json.Unmarshal(s.Tools, &tools) != nil {
			continue // an unreadable cache is listed again when the server connects
		}
		if c.SetServer(catalog.Server{ID: s.Name, Plugin: plugin, Trusted: s.Trusted, Connected: true}, tools) != nil {
			continue
		}
	}
	return c.View().Capabilities(), nil
}

// work is the commands' plugin work on the service: its store, its
// sign-in manager (whose listener takes the sign-in's return), the words
// into run, the values from the form.
func (t *pluginsTab) work(all collection.Collection, run *pluginRun, values map[string]string) pluginWork {
	return pluginWork{a: t.a, cfg: t.s.cfg, db: t.s.db, all: all, out: run,
		signin: func() (*signin.Manager, func(), error) {
			if t.s.signin == nil {
				return nil, nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "the keyring cannot be opened, so no sign-in can be kept (see jarvisbot's log)")
			}
			return t.s.signin, func() {}, nil // the service's: it closes with the service
		},
		link: run.setLink,
		ask: func(name, _ string) (string, error) {
			return strings.TrimSpace(values[name]), nil
		},
	}
}

func (t *pluginsTab) Install(ctx context.Context, name string, in web.InstallInput) (web.Progress, error) {
	all, sp, err := t.plugin(name)
	if err != nil {
		return web.Progress{}, err
	}
	if in.AllGoogle && builtins.ProviderOf(name) != builtins.Google {
		return web.Progress{}, jarvisbot.Errorf(jarvisbot.EINVALID, "--all-google is for installing a Google plugin (google-calendar, gmail, google-drive)")
	}
	run, fresh := t.start(name, sp.Plugin.DisplayName(), "install")
	if fresh {
		w := t.work(all, run, in.Values)
		t.s.spawn(func(ctx context.Context) {
			err := w.install(ctx, sp, installOptions{allGoogle: in.AllGoogle})
			t.takeUp(ctx, all, name)
			run.finish(err)
		})
	}
	return run.settle(ctx)
}

func (t *pluginsTab) Renew(ctx context.Context, name string) (web.Progress, error) {
	all, sp, err := t.plugin(name)
	if err != nil {
		return web.Progress{}, err
	}
	run, fresh := t.start(name, sp.Plugin.DisplayName(), "renew")
	if !fresh {
		return run.settle(ctx)
	}
	// The chat's Renew button: the same link and wait, the same words.
	link, wait, err := t.a.renew(ctx, t.s.service, name)
	if err != nil {
		err = jarvisbot.Errorf(jarvisbot.ErrorCode(err), "the sign-in to %s could not start: %w", name, err)
		run.finish(err)
		return run.progress(), err
	}
	run.sayf("Open this link to sign in to %s again.\n", name)
	run.setLink(link)
	t.s.spawn(func(ctx context.Context) {
		if err := wait(ctx); err != nil {
			run.finish(jarvisbot.Errorf(jarvisbot.ErrorCode(err), "the sign-in to %s did not complete: %w", name, err))
			return
		}
		t.takeUp(ctx, all, name)
		run.sayf("Signed in to %s again: its tools are back.\n", name)
		run.finish(nil)
	})
	return run.settle(ctx)
}

func (t *pluginsTab) Progress(_ context.Context, name string) (web.Progress, bool) {
	t.mu.Lock()
	run := t.runs[name]
	t.mu.Unlock()
	if run == nil {
		return web.Progress{}, false
	}
	return run.progress(), true
}

func (t *pluginsTab) Remove(ctx context.Context, name string) (string, error) {
	all, sp, err := t.plugin(name)
	if err != nil {
		return "", err
	}
	servers, err := t.s.db.MCPServers(ctx)
	if err != nil {
		return "", err
	}
	var out pluginRun
	err = t.work(all, &out, nil).remove(ctx, sp)
	// Whatever the keyring said, what was removed leaves the running
	// service: the plugin's servers stop, its built-in tools go.
	for _, srv := range servers {
		if srv.Plugin == name {
			t.s.host.Stop(srv.Name)
		}
	}
	t.s.syncBuiltins(ctx)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out.progress().Words), nil
}

// takeUp brings what an install or a sign-in changed into the running
// service, as a restart would: the plugin's servers that are on now and
// not running yet start (through its sign-in when it has one), and
// built-in plugins join the catalog.
func (t *pluginsTab) takeUp(ctx context.Context, all collection.Collection, plugin string) {
	servers, err := t.s.db.MCPServers(ctx)
	if err != nil {
		t.s.log.Warn("reading the MCP servers after an install", "plugin", plugin, "err", err)
	}
	running := map[string]bool{}
	for _, st := range t.s.host.Status() {
		running[st.Name] = true
	}
	for _, srv := range servers {
		if srv.Plugin != plugin || !srv.Enabled || running[srv.Name] {
			continue
		}
		hs := mcphost.FromStored(srv)
		if all.SignsIn(plugin) && t.s.signin != nil {
			hs = t.s.signin.Through(hs)
		}
		if err := t.s.host.Start(t.s.work, hs); err != nil {
			t.s.log.Warn("MCP server not started", "server", srv.Name, "err", err)
		}
	}
	t.s.told.Delete(plugin)
	t.s.syncBuiltins(ctx)
}

// start begins a run for plugin, unless one is still waiting: that one is
// returned, not replaced (a second sign-in would void the first's link).
func (t *pluginsTab) start(plugin, display, action string) (*pluginRun, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if run := t.runs[plugin]; run != nil && !run.progress().Done {
		return run, false
	}
	run := &pluginRun{plugin: plugin, display: display, action: action, settled: make(chan struct{})}
	t.runs[plugin] = run
	return run, true
}

// pluginRun is one install or renewal from the dashboard: the words it
// printed, its sign-in link, its end. It is the run's io.Writer.
type pluginRun struct {
	plugin, display, action string

	mu      sync.Mutex
	words   strings.Builder
	link    string
	done    bool
	err     error
	settled chan struct{} // closed once there is a link or the run is over
	once    sync.Once
}

// sayf adds a line of the run's own words (a builder does not fail).
func (r *pluginRun) sayf(format string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(&r.words, format, a...)
}

func (r *pluginRun) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.words.Write(p)
}

func (r *pluginRun) setLink(link string) {
	r.mu.Lock()
	r.link = link
	r.mu.Unlock()
	r.settle1()
}

func (r *pluginRun) finish(err error) {
	r.mu.Lock()
	r.done, r.err = true, err
	r.mu.Unlock()
	r.settle1()
}

func (r *pluginRun) settle1() {
	if r.settled != nil {
		r.once.Do(func() { close(r.settled) })
	}
}

// settle waits until the run shows a link or is over; a run that failed
// before it showed one is the error.
func (r *pluginRun) settle(ctx context.Context) (web.Progress, error) {
	select {
	case <-r.settled:
	case <-ctx.Done():
		return r.progress(), ctx.Err()
	}
	r.mu.Lock()
	err, link := r.err, r.link
	r.mu.Unlock()
	if err != nil && link == "" {
		return r.progress(), err
	}
	return r.progress(), nil
}

func (r *pluginRun) progress() web.Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := web.Progress{Plugin: r.plugin, DisplayName: r.display, Action: r.action, Link: r.link, Words: r.words.String(), Done: r.done}
	if r.err != nil {
		p.Err = r.err.Error()
	}
	if r.done {
		p.Link = "" // used up or void: the page no longer offers it
	}
	return p
}
