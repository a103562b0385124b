package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/config"

	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// shipped is a store plugin with its parsed manual.
type shipped struct {
	plugin *plugins.Plugin
	manual *skills.Skill
}

// loadShipped reads the embedded plugin store and each plugin's manual. A
// shipped plugin without a manual, or with a broken one, is a build defect.
func loadShipped() (map[string]shipped, error) {
	list, err := plugins.Shipped()
	if err != nil {
		return nil, err
	}
	fsys := plugins.StoreFS()
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

// localPluginsDir holds the plugins the owner installed from a folder:
// <data dir>/plugins/NAME, each a copy of the folder as it was validated.
func localPluginsDir(cfg config.Config) string { return filepath.Join(cfg.DataDir, "plugins") }

// loadStore is every plugin the owner can install or has: the shipped
// store and the local plugins (a local one replaces a shipped one of the
// same name). A broken local plugin is reported on warn and skipped.
func loadStore(cfg config.Config, warn io.Writer) (map[string]shipped, error) {
	all, err := loadShipped()
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(localPluginsDir(cfg))
	if err != nil {
		return all, nil // none yet
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(localPluginsDir(cfg), e.Name())
		p, err := plugins.Load(dir)
		if err == nil {
			var m *skills.Skill
			if m, err = skills.Manual(os.DirFS(dir), rebase(p)); err == nil || jarvisbot.ErrorCode(err) == jarvisbot.ENOTFOUND {
				if m == nil {
					m = &skills.Skill{Name: p.Manifest.Name, Plugin: p.Manifest.Name, Description: p.Manifest.Description, Origin: skills.Own, Does: skills.KindTools}
				}
				all[p.Manifest.Name] = shipped{plugin: p, manual: m}
				continue
			}
		}
		fmt.Fprintf(warn, "jarvisbot: skipping local plugin %s: %v\n", e.Name(), err)
	}
	return all, nil
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
