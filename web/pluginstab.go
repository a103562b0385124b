package web

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/store"
)

// PluginsTab is the Plugins tab over the running service: the plugin use
// cases of app, on the service's store and sign-in manager, so that an
// install or removal takes effect at once.
func PluginsTab(svc *app.Service) Plugins {
	return &pluginsTab{svc: svc, in: svc.Installation(), runs: map[string]*pluginRun{}}
}

// pluginsTab implements Plugins. An install or renewal runs in the
// background on the service (it ends with it); runs keeps the latest of
// each plugin for its progress page.
type pluginsTab struct {
	svc *app.Service
	in  *app.Installation

	mu   sync.Mutex
	runs map[string]*pluginRun
}

var _ Plugins = (*pluginsTab)(nil)

func (t *pluginsTab) List(ctx context.Context) ([]PluginRow, error) {
	list, err := t.in.Plugins(ctx)
	if err != nil {
		return nil, err
	}
	var rows []PluginRow
	for _, e := range list.Entries {
		rows = append(rows, t.row(ctx, e))
	}
	return rows, nil
}

// row is one line of `plugins list`, with what the plugin brings.
func (t *pluginsTab) row(ctx context.Context, e app.PluginEntry) PluginRow {
	row := PluginRow{Name: e.Name, DisplayName: e.DisplayName, Description: e.Description, State: e.State,
		Installed: e.State != plugins.NotInstalled, Attention: e.State == string(store.PluginNeedsAttention)}
	switch e.Kind {
	case "mcp":
		row.Kind, row.Brings = "MCP server", "MCP server "+strings.Join(e.MCP, ", ")
	case "channel":
		row.Kind, row.Brings = "chat channel", "a chat channel to talk to jarvisbot; no tools"
	default:
		row.Kind = "built in"
		row.Brings = fmt.Sprintf("%d tools built into jarvisbot", e.Tools)
	}
	row.AsksValues = len(t.in.MissingSettings(ctx, e.Plugin)) > 0
	row.SignInMissing = e.SignInMissing
	return row
}

func (t *pluginsTab) Plugin(ctx context.Context, name string) (PluginPage, error) {
	f, err := t.in.Plugin(ctx, name)
	if err != nil {
		return PluginPage{}, err
	}
	pg := PluginPage{
		PluginRow: t.row(ctx, f.Entry),
		Version:   f.Version, From: f.From, SignIn: f.SignIn, Homepage: f.Homepage,
		Manual: "skill:" + f.Manual, Tier: f.Tier, Words: f.Words, WordsDE: f.WordsDE, Text: f.Body,
		Google: f.Google, Renewable: f.Renewable,
	}
	pg.DisplayName, pg.Description = f.Display, f.Description
	if pg.Tier == "" {
		pg.Tier = string(catalog.TierMonitor)
	}
	if !f.Since.IsZero() {
		pg.Since = f.Since.Local().Format("2006-01-02 15:04")
	}
	if !pg.Installed {
		for _, s := range t.in.MissingSettings(ctx, f.Entry.Plugin) {
			pg.Settings = append(pg.Settings, Setting{Name: s.Name, Hint: s.Hint, Secret: s.Secret})
		}
	}
	for _, s := range f.Servers {
		pg.Servers = append(pg.Servers, PluginServer{ID: s.ID, Type: s.Type, Target: s.Target})
	}
	tools, err := t.in.PluginTools(ctx, f)
	if err != nil {
		return pg, err
	}
	for _, cp := range tools {
		pg.Tools = append(pg.Tools, PluginTool{ID: cp.ID, Tier: string(cp.Tier), Description: app.FirstSentence(cp.Description)})
	}
	return pg, nil
}

func (t *pluginsTab) Install(ctx context.Context, name string, in InstallInput) (Progress, error) {
	f, err := t.in.Plugin(ctx, name)
	if err != nil {
		return Progress{}, err
	}
	if in.AllGoogle && !f.Google {
		return Progress{}, app.ErrAllGoogle
	}
	run, fresh := t.start(name, f.Entry.Plugin.DisplayName(), "install")
	if fresh {
		o := app.InstallOptions{AllGoogle: in.AllGoogle, Ask: func(s app.PluginSetting) (string, error) {
			return strings.TrimSpace(in.Values[s.Name]), nil
		}}
		t.svc.Spawn(func(ctx context.Context) {
			_, err := t.in.InstallPlugin(ctx, name, o, run.event)
			run.finish(err)
		})
	}
	return run.settle(ctx)
}

func (t *pluginsTab) Renew(ctx context.Context, name string) (Progress, error) {
	f, err := t.in.Plugin(ctx, name)
	if err != nil {
		return Progress{}, err
	}
	// The chat's Renew button: the same link and wait, the same words.
	run, fresh := t.start(name, f.Entry.Plugin.DisplayName(), "renew")
	if fresh {
		t.svc.Spawn(func(ctx context.Context) {
			run.finish(t.in.RenewPlugin(ctx, name, run.event))
		})
	}
	return run.settle(ctx)
}

func (t *pluginsTab) Progress(_ context.Context, name string) (Progress, bool) {
	t.mu.Lock()
	run := t.runs[name]
	t.mu.Unlock()
	if run == nil {
		return Progress{}, false
	}
	return run.progress(), true
}

func (t *pluginsTab) Remove(ctx context.Context, name string) (string, error) {
	res, err := t.in.RemovePlugin(ctx, name)
	if err != nil {
		return "", err
	}
	return res.String(), nil
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

// pluginRun is one install or renewal from the dashboard: the words of
// its steps, its sign-in link, its end.
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

// event adds a step of the run: its words, and the link it waits at.
func (r *pluginRun) event(e app.PluginEvent) {
	r.mu.Lock()
	r.words.WriteString(e.String() + "\n")
	r.mu.Unlock()
	if e.Kind == app.PluginSignInLink || e.Kind == app.PluginRenewLink {
		r.setLink(e.URL)
	}
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
func (r *pluginRun) settle(ctx context.Context) (Progress, error) {
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

func (r *pluginRun) progress() Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := Progress{Plugin: r.plugin, DisplayName: r.display, Action: r.action, Link: r.link, Words: r.words.String(), Done: r.done}
	if r.err != nil {
		p.Err = r.err.Error()
	}
	if r.done {
		p.Link = "" // used up or void: the page no longer offers it
	}
	return p
}
