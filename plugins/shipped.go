package plugins

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"

	"github.com/jarvisbot/jarvisbot"
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
	names, err := ShippedNames()
	if err != nil {
		return nil, err
	}
	out := make([]*Plugin, 0, len(names))
	fsys, sch := ShippedFS(), shippedSchemas()
	for _, name := range names {
		p, err := loadFS(fsys, name, sch)
		if err != nil {
			return nil, fmt.Errorf("shipped plugin %s: %w", name, err)
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Manifest.Name < out[j].Manifest.Name })
	return out, nil
}

// ShippedNames names the plugins of the shipped store without reading
// them: each one's folder is named like the plugin (a test holds every
// shipped plugin to it), sorted.
func ShippedNames() ([]string, error) {
	entries, err := fs.ReadDir(ShippedFS(), ".")
	if err != nil {
		return nil, fmt.Errorf("read the shipped plugin store: %w", err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out, nil // fs.ReadDir sorts by name
}

// ShippedPlugin loads the one shipped plugin of that name, or says there
// is none (ENOTFOUND).
func ShippedPlugin(name string) (*Plugin, error) {
	if err := ValidName(name); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "plugin name %w", err)
	}
	p, err := loadFS(ShippedFS(), name, shippedSchemas())
	if err != nil {
		return nil, fmt.Errorf("shipped plugin %s: %w", name, err)
	}
	return p, nil
}

// ManualPath is where a plugin's manual lives inside its folder: the skill
// named like the plugin.
func ManualPath(p *Plugin) string {
	return path.Join(p.Dir, SkillsDir, p.Manifest.Name, SkillFile)
}
