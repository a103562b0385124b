package plugins

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
)

// shipped is the plugin collection that ships inside the binary (P2), shown
// to the owner as the Store: one folder per plugin in the Agent Plugins
// format, each with its manual.
//
//go:embed all:shipped
var shipped embed.FS

// ShippedFS returns the shipped collection as a file system whose top level
// holds one folder per plugin.
func ShippedFS() fs.FS {
	sub, err := fs.Sub(shipped, "shipped")
	if err != nil {
		panic("plugins: embedded store is missing: " + err.Error()) // a build defect, caught by every test
	}
	return sub
}

// Shipped loads every plugin of the shipped store, sorted by name. A
// shipped plugin that does not validate is a build defect, reported with
// every problem named.
func Shipped() ([]*Plugin, error) {
	fsys := ShippedFS()
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("read the shipped plugin store: %w", err)
	}
	var out []*Plugin
	sch := shippedSchemas()
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		p, err := loadFS(fsys, e.Name(), sch)
		if err != nil {
			return nil, fmt.Errorf("shipped plugin %s: %w", e.Name(), err)
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Manifest.Name < out[j].Manifest.Name })
	return out, nil
}

// ManualPath is where a plugin's manual lives inside its folder: the skill
// named like the plugin.
func ManualPath(p *Plugin) string {
	return path.Join(p.Dir, SkillsDir, p.Manifest.Name, SkillFile)
}
