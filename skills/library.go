package skills

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
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
