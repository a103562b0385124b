package app

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/plugins/builtins"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/store"
)

// storeFocus chooses an agent's focus (C6) on the catalog and on the
// plugin store together: the tools its words name among what is there
// now, and the store's plugins its words name whether they are installed
// or not ("a daily overview of my Gmail inbox" has plugin:gmail before
// Gmail is installed). A plugin's tools join the agent's focus once the
// plugin is connected, with no edit of the agent.
type storeFocus struct {
	view *catalog.View
	shop collection.Collection
}

func (f storeFocus) Focus(name, description string) []string {
	out := f.view.Focus(name, description)
	// What the words alone point at in the store counts where nothing in
	// the catalog fits them: "looks after the notes in my wiki" is the
	// wiki's, though Notion keeps notes too. A plugin named by its name
	// always counts.
	byName, byWords := f.shop.Named(name + " " + description)
	if len(out) == 0 {
		byName = append(byName, byWords...)
	}
	for _, p := range byName {
		out = append(out, "plugin:"+p)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// FocusOn is the focus chooser over view and the plugin store in dataDir;
// a store that cannot be read leaves focus to the catalog (its plugins
// are reported where the store is listed).
func FocusOn(view *catalog.View, dataDir string) agents.Focuser {
	shop, err := collection.Load(dataDir, io.Discard)
	if err != nil {
		return view
	}
	return storeFocus{view: view, shop: shop}
}

// FocusPlugin is a store plugin in an agent's focus that is not connected
// yet: its tools join the agent once it is, with no edit of the agent.
type FocusPlugin struct {
	Name    string
	Why     string // "is not installed", "needs its sign-in", …
	Command string // what connects it
	// Installed says the plugin is installed and waits for its sign-in.
	Installed bool
}

// Line is the plugin as agents add and the dashboard say it.
func (p FocusPlugin) Line() string {
	return fmt.Sprintf("plugin:%s %s: its tools join this agent once it is connected (%s)", p.Name, p.Why, p.Command)
}

// FocusPlugins are the store plugins in ag's focus that are not connected.
func (in *Installation) FocusPlugins(ctx context.Context, ag store.Agent) ([]FocusPlugin, error) {
	var names []string
	for _, f := range ag.Focus {
		if n, ok := strings.CutPrefix(f, "plugin:"); ok && !strings.ContainsAny(n, "*/") {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	shop, err := in.pluginCollection()
	if err != nil {
		return nil, err
	}
	installed, err := in.DB.InstalledPlugins(ctx)
	if err != nil {
		return nil, err
	}
	state := map[string]store.PluginState{}
	for _, p := range installed {
		state[p.Name] = p.State
	}
	var out []FocusPlugin
	for _, n := range names {
		if _, ok := shop[n]; !ok {
			continue // not a store plugin: a capability of the catalog
		}
		st, ok := state[n]
		switch {
		case !ok:
			out = append(out, FocusPlugin{Name: n, Why: "is not installed", Command: "jarvisbot plugins install " + n})
		case st == store.PluginNeedsAttention:
			out = append(out, FocusPlugin{Name: n, Why: "needs its sign-in renewed", Command: "jarvisbot plugins signin " + n, Installed: true})
		case st == store.PluginInstalled && (builtins.Has(n) || shop.SignsIn(n)):
			out = append(out, FocusPlugin{Name: n, Why: "is installed but not signed in", Command: "jarvisbot plugins signin " + n, Installed: true})
		}
	}
	return out, nil
}
