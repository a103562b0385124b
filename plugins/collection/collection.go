// Package collection is the plugin collection the owner chooses from (P1,
// P2, S2): the plugins that ship inside the binary and the ones the owner
// installed from a folder of their own, each with its parsed manual. It
// also says which plugins' manuals are on: installed or connected, and not
// waiting for a renewed sign-in (P4).
//
// It sits below plugins because a manual is a skill: plugins reads the
// format, skills reads SKILL.md (and imports plugins), and this package
// joins the two.
package collection

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/namedir"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// Plugin is a plugin of the collection with its parsed manual.
type Plugin struct {
	Plugin *plugins.Plugin
	Manual *skills.Skill
	// Local is the folder of a plugin the owner installed from a folder of
	// their own (its copy in the data directory); "" for a shipped one.
	Local string
}

// Card is the plugin's usage card for the gate (C5).
func (p Plugin) Card() []string { return plugins.Card(p.Manual, p.Plugin) }

// Collection is every plugin the owner can install or has, by name.
type Collection map[string]Plugin

// SignsIn reports whether the collection's plugin of that name signs in
// in the browser, so that its server is reached through its sign-in.
func (c Collection) SignsIn(plugin string) bool {
	p, ok := c[plugin]
	return ok && p.Plugin.NeedsSignIn()
}

// Manuals are the plugins' manuals by plugin name, as skills.Scope takes
// them.
func (c Collection) Manuals() skills.ManualMap {
	out := make(skills.ManualMap, len(c))
	for name, p := range c {
		out[name] = p.Manual
	}
	return out
}

// Shipped reads the embedded collection and each plugin's manual. A
// shipped plugin without a manual, or with a broken one, is a build defect.
func Shipped() (Collection, error) {
	list, err := plugins.Shipped()
	if err != nil {
		return nil, err
	}
	fsys := plugins.ShippedFS()
	out := make(Collection, len(list))
	for _, p := range list {
		m, err := plugins.Manual(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("shipped plugin %s: %w", p.Manifest.Name, err)
		}
		out[p.Manifest.Name] = Plugin{Plugin: p, Manual: m}
	}
	return out, nil
}

// LocalDir holds the plugins the owner installed from a folder:
// <data dir>/plugins/NAME, each a copy of the folder as the owner accepted
// it. A plugin name becomes a path there only through it (X1).
func LocalDir(dataDir string) namedir.Dir {
	return namedir.New(filepath.Join(dataDir, "plugins"), "plugin", func(name string) error {
		if err := plugins.ValidName(name); err != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "plugin name %w", err)
		}
		return nil
	})
}

// Load is the whole collection: the shipped plugins and the local ones in
// <dataDir>/plugins. A local plugin never replaces a shipped one of the
// same name (P1): such a copy is reported on warn and ignored, as is a
// broken one. Links in the plugins folder are no plugins.
func Load(dataDir string, warn io.Writer) (Collection, error) {
	all, err := Shipped()
	if err != nil {
		return nil, err
	}
	all.addLocals(dataDir, warn)
	return all, nil
}

// addLocals adds the local plugins in <dataDir>/plugins to c, which holds
// the shipped ones.
func (c Collection) addLocals(dataDir string, warn io.Writer) {
	local := LocalDir(dataDir)
	names, refused, err := local.Names()
	if err != nil {
		fmt.Fprintf(warn, "jarvisbot: local plugins not read: %v\n", err)
		return
	}
	for _, name := range refused {
		fmt.Fprintf(warn, "jarvisbot: skipping local plugin folder %s: %v\n", visible.Text(name), local.Check(name))
	}
	for _, name := range names {
		c.addLocal(filepath.Join(local.Path(), name), name, warn)
	}
}

// addLocal adds the local plugin in dir, or says on warn why it is left out.
func (c Collection) addLocal(dir, name string, warn io.Writer) {
	p, err := plugins.Load(dir)
	if err == nil {
		if sp, ok := c[p.Manifest.Name]; ok {
			if sp.Local == "" {
				fmt.Fprintf(warn, "jarvisbot: ignoring the local plugin in %s: it is named %q like a plugin that ships with jarvisbot; give it another name in its plugin.json and install it again\n", dir, p.Manifest.Name)
			} else {
				fmt.Fprintf(warn, "jarvisbot: ignoring the local plugin in %s: %s holds a plugin named %q already\n", dir, sp.Local, p.Manifest.Name)
			}
			return
		}
		var m *skills.Skill
		if m, err = ReadManual(dir, p); err == nil {
			c[p.Manifest.Name] = Plugin{Plugin: p, Manual: m, Local: dir}
			return
		}
	}
	fmt.Fprintf(warn, "jarvisbot: skipping local plugin %s: %v\n", visible.Text(name), err)
}

// ReadManual reads the manual of the plugin p loaded from dir; a plugin
// that brings none gets a placeholder that names it and uses its tools.
func ReadManual(dir string, p *plugins.Plugin) (*skills.Skill, error) {
	m, err := plugins.Manual(os.DirFS(dir), Rebase(p))
	if err != nil && jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		return nil, err
	}
	if m == nil {
		m = Placeholder(p)
	}
	return m, nil
}

// Placeholder stands in for the manual of a plugin that brings none: it
// names the plugin and uses its tools.
func Placeholder(p *plugins.Plugin) *skills.Skill {
	return &skills.Skill{Name: p.Manifest.Name, Plugin: p.Manifest.Name, Description: p.Manifest.Description, Origin: skills.Own, Does: skills.KindTools}
}

// Rebase makes a plugin's paths relative to its own folder, for reading
// it through os.DirFS(dir).
func Rebase(p *plugins.Plugin) *plugins.Plugin {
	q := *p
	q.Dir = "."
	return &q
}

// Installed lists the installed plugins, a small view of the store.
type Installed interface {
	InstalledPlugins(ctx context.Context) ([]store.InstalledPlugin, error)
}

// NeedingAttention are the installed plugins whose sign-in expired or was
// revoked (P4): until it is renewed they have no tools and their manual is
// off, whatever the store remembers of their servers.
func NeedingAttention(ctx context.Context, db Installed) (map[string]bool, error) {
	list, err := db.InstalledPlugins(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, p := range list {
		if p.State == store.PluginNeedsAttention {
			out[p.Name] = true
		}
	}
	return out, nil
}

// AddInstalled adds to on the plugins whose manual's words are on:
// installed, not waiting for a renewed sign-in (S2, P4).
func AddInstalled(ctx context.Context, db Installed, on map[string]bool) error {
	list, err := db.InstalledPlugins(ctx)
	if err != nil {
		return err
	}
	for _, p := range list {
		if p.State != store.PluginNeedsAttention {
			on[p.Name] = true
		}
	}
	return nil
}

// Connected are the plugins whose manuals are on: those installed (and
// not waiting for a renewed sign-in) and those whose server is connected
// in the catalog.
func Connected(ctx context.Context, db Installed, v *catalog.View) (map[string]bool, error) {
	on := map[string]bool{}
	for _, srv := range v.Servers() {
		if srv.Connected && srv.Plugin != "" {
			on[srv.Plugin] = true
		}
	}
	return on, AddInstalled(ctx, db, on)
}

// RenewHint says why a plugin under Needs attention is not offered and
// what renews it.
func RenewHint(plugin string) string {
	return "not connected: plugin " + plugin + " needs a renewed sign-in: jarvisbot plugins signin " + plugin
}
