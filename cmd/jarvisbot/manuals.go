package main

import (
	"fmt"

	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/skills"
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
