package main

import (
	"fmt"
	"io/fs"
	"slices"

	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/skills"
)

// shipped is a store plugin with its parsed manual.
type shipped struct {
	plugin *plugins.Plugin
	manual *skills.Skill // nil if the plugin has none
}

// loadShipped reads the embedded plugin store and each plugin's manual.
func loadShipped() (map[string]shipped, error) {
	list, err := plugins.Shipped()
	if err != nil {
		return nil, err
	}
	fsys := plugins.StoreFS()
	out := make(map[string]shipped, len(list))
	for _, p := range list {
		sp := shipped{plugin: p}
		path := plugins.ManualPath(p)
		if data, err := fs.ReadFile(fsys, path); err == nil {
			m, err := skills.Parse(path, data)
			if err != nil {
				return nil, fmt.Errorf("shipped manual of %s: %w", p.Manifest.Name, err)
			}
			sp.manual = m
		}
		out[p.Manifest.Name] = sp
	}
	return out, nil
}

// card is the plugin's usage card for the gate (C5): the manual's words in
// English and German and the plugin's own card words, once each.
func (sp shipped) card() []string {
	var out []string
	if sp.manual != nil {
		out = append(append(out, sp.manual.Words...), sp.manual.WordsDE...)
	}
	out = append(append(out, sp.plugin.Ext.Card...), sp.plugin.Ext.CardDE...)
	slices.Sort(out)
	return slices.Compact(out)
}
