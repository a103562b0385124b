package plugins

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/skills"
)

// Manual returns a plugin's manual: the skill named like the plugin, read
// from the file system the plugin was loaded from. It fails with ENOTFOUND
// when the plugin has none, and with EINVALID when the manual does not
// belong to the plugin it ships in.
func Manual(fsys fs.FS, p *Plugin) (*skills.Skill, error) {
	file := ManualPath(p)
	f, err := fsys.Open(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "plugin %s has no manual at %s", p.Manifest.Name, file)
	}
	if err != nil {
		return nil, fmt.Errorf("read the manual of plugin %s: %w", p.Manifest.Name, err)
	}
	defer f.Close()
	// A local plugin's folder is on disk: its manual is read under the
	// same limit as every SKILL.md.
	data, err := skills.FileLimit().ReadOpened(f, file)
	if err != nil {
		return nil, err
	}
	s, err := skills.Parse(file, data)
	if err != nil {
		return nil, err
	}
	if s.Plugin == "" {
		s.Plugin = p.Manifest.Name // the folder says whose manual it is
	}
	if s.Plugin != p.Manifest.Name {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "%s: metadata.jarvisbot.plugin is %q, but the manual ships in plugin %q", file, s.Plugin, p.Manifest.Name)
	}
	return s, nil
}

// Card is a manual's usage card for the MCP gate (C5): its trigger words in
// English and German, and the plugin's own card words, once each in order.
func Card(manual *skills.Skill, p *Plugin) []string {
	var all []string
	if manual != nil {
		all = append(append(all, manual.Words...), manual.WordsDE...)
	}
	all = append(append(all, p.Ext.Card...), p.Ext.CardDE...)
	seen := make(map[string]bool, len(all))
	out := all[:0:0]
	for _, w := range all {
		if w != "" && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}
