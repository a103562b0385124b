package main

import (
	"io"

	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/namedir"
	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/skills"
)

// shipped is a plugin of the collection as the plugin and MCP commands
// use it; collection.Plugin is the package's own form.
type shipped struct {
	plugin *plugins.Plugin
	manual *skills.Skill
	local  string // its folder, for a plugin installed from the owner's own; "" for a shipped one
}

func fromCollection(p collection.Plugin) shipped {
	return shipped{plugin: p.Plugin, manual: p.Manual, local: p.Local}
}

// card is the plugin's usage card for the gate (C5).
func (sp shipped) card() []string { return skills.Card(sp.manual, sp.plugin) }

// loadStore is the plugin collection of cfg's data directory (P1, P2).
func loadStore(cfg config.Config, warn io.Writer) (map[string]shipped, error) {
	all, err := collection.Load(cfg.DataDir, warn)
	if err != nil {
		return nil, err
	}
	out := make(map[string]shipped, len(all))
	for name, p := range all {
		out[name] = fromCollection(p)
	}
	return out, nil
}

// Former names, kept while the plugin and MCP commands call them.
func localPlugins(cfg config.Config) namedir.Dir        { return collection.LocalDir(cfg.DataDir) }
func placeholderManual(p *plugins.Plugin) *skills.Skill { return collection.Placeholder(p) }
func rebase(p *plugins.Plugin) *plugins.Plugin          { return collection.Rebase(p) }
