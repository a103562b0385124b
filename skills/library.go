package skills

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/plugins"
)

// shipped holds the general skills that ship with jarvisbot (S2), one
// folder per skill, beside the plugin manuals that ship in the plugin store.
//
//go:embed all:shipped
var shipped embed.FS

// Shipped returns the general skills that ship inside the binary, sorted by
// name. A shipped skill that does not parse is a build defect.
func Shipped() ([]*Skill, error) {
	fsys, err := fs.Sub(shipped, "shipped")
	if err != nil {
		return nil, fmt.Errorf("shipped skills: %w", err)
	}
	return LoadAll(fsys, ".")
}

// LoadAll parses every DIR/NAME/SKILL.md of fsys as an own skill, sorted
// by name. It is for trusted trees (the embedded ones); the owner's folders
// are read with Load, one by one, so that one broken file skips only itself.
func LoadAll(fsys fs.FS, dir string) ([]*Skill, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("read skills in %s: %w", dir, err)
	}
	var out []*Skill
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		p := path.Join(dir, e.Name(), FileName)
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("read skill %s: %w", p, err)
		}
		s, err := Parse(p, data)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Manual returns a plugin's manual: the skill named like the plugin, read
// from the file system the plugin was loaded from. It fails with ENOTFOUND
// when the plugin has none, and with EINVALID when the manual does not
// belong to the plugin it ships in.
func Manual(fsys fs.FS, p *plugins.Plugin) (*Skill, error) {
	file := plugins.ManualPath(p)
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
	data, err := FileLimit().ReadOpened(f, file)
	if err != nil {
		return nil, err
	}
	s, err := Parse(file, data)
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
func Card(manual *Skill, p *plugins.Plugin) []string {
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
