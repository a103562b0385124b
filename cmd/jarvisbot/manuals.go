package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/namedir"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// shipped is a store plugin with its parsed manual.
type shipped struct {
	plugin *plugins.Plugin
	manual *skills.Skill
	// local is the folder of a plugin the owner installed from a folder of
	// their own (its copy in the data directory); "" for a shipped one.
	local string
}

// loadShipped reads the embedded plugin store and each plugin's manual. A
// shipped plugin without a manual, or with a broken one, is a build defect.
func loadShipped() (map[string]shipped, error) {
	list, err := plugins.Shipped()
	if err != nil {
		return nil, err
	}
	fsys := plugins.ShippedFS()
	out := make(map[string]shipped, len(list))
	for _, p := range list {
		m, err := skills.Manual(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("shipped plugin %s: %w", p.Manifest.Name, err)
		}
		out[p.Manifest.Name] = shipped{plugin: p, manual: m}
	}
	return out, nil
}

// card is the plugin's usage card for the gate (C5).
func (sp shipped) card() []string { return skills.Card(sp.manual, sp.plugin) }

// localPlugins holds the plugins the owner installed from a folder:
// <data dir>/plugins/NAME, each a copy of the folder as the owner accepted
// it. A plugin name becomes a path there only through it (X1).
func localPlugins(cfg config.Config) namedir.Dir {
	return namedir.New(filepath.Join(cfg.DataDir, "plugins"), "plugin", func(name string) error {
		if err := plugins.ValidName(name); err != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "plugin name %w", err)
		}
		return nil
	})
}

// loadStore is every plugin the owner can install or has: the shipped
// store and the local plugins. A local plugin never replaces a shipped one
// of the same name (P1): such a copy is reported on warn and ignored, as
// is a broken one. Links in the plugins folder are no plugins.
func loadStore(cfg config.Config, warn io.Writer) (map[string]shipped, error) {
	all, err := loadShipped()
	if err != nil {
		return nil, err
	}
	local := localPlugins(cfg)
	names, refused, err := local.Names()
	if err != nil {
		fmt.Fprintf(warn, "jarvisbot: local plugins not read: %v\n", err)
		return all, nil
	}
	for _, name := range refused {
		fmt.Fprintf(warn, "jarvisbot: skipping local plugin folder %s: %v\n", visible.Text(name), local.Check(name))
	}
	for _, name := range names {
		dir := filepath.Join(local.Path(), name)
		p, err := plugins.Load(dir)
		if err == nil {
			if sp, ok := all[p.Manifest.Name]; ok {
				if sp.local == "" {
					fmt.Fprintf(warn, "jarvisbot: ignoring the local plugin in %s: it is named %q like a plugin that ships with jarvisbot; give it another name in its plugin.json and install it again\n", dir, p.Manifest.Name)
				} else {
					fmt.Fprintf(warn, "jarvisbot: ignoring the local plugin in %s: %s holds a plugin named %q already\n", dir, sp.local, p.Manifest.Name)
				}
				continue
			}
			var m *skills.Skill
			if m, err = skills.Manual(os.DirFS(dir), rebase(p)); err == nil || jarvisbot.ErrorCode(err) == jarvisbot.ENOTFOUND {
				if m == nil {
					m = placeholderManual(p)
				}
				all[p.Manifest.Name] = shipped{plugin: p, manual: m, local: dir}
				continue
			}
		}
		fmt.Fprintf(warn, "jarvisbot: skipping local plugin %s: %v\n", visible.Text(name), err)
	}
	return all, nil
}

// placeholderManual stands in for the manual of a plugin that brings none:
// it names the plugin and uses its tools.
func placeholderManual(p *plugins.Plugin) *skills.Skill {
	return &skills.Skill{Name: p.Manifest.Name, Plugin: p.Manifest.Name, Description: p.Manifest.Description, Origin: skills.Own, Does: skills.KindTools}
}

// rebase makes a plugin's paths relative to its own folder, for reading
// it through os.DirFS(dir).
func rebase(p *plugins.Plugin) *plugins.Plugin {
	q := *p
	q.Dir = "."
	return &q
}

// pluginsNeedingAttention are the installed plugins whose sign-in expired
// or was revoked (P4): until it is renewed they have no tools and their
// manual is off, whatever the store remembers of their servers.
func pluginsNeedingAttention(ctx context.Context, db store.Plugins) (map[string]bool, error) {
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

// renewHint says why a plugin under Needs attention is not offered and
// what renews it.
func renewHint(plugin string) string {
	return "not connected: plugin " + plugin + " needs a renewed sign-in: jarvisbot plugins signin " + plugin
}
