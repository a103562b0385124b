package collection

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/skills"
)

// Shelf holds the collection's manuals as skills.Scope takes them, each
// read when first asked for: a turn needs only the connected plugins'
// manuals, and Load checks every plugin of the store and parses every
// manual, some 2 MB of allocations that the first turn would otherwise
// pay. The local plugins, few and each needing its folder checked to know
// whether it counts, are read whole with the first question.
type Shelf struct {
	dataDir string
	warn    io.Writer

	once  sync.Once
	names []string
	local Collection
	err   error

	mu   sync.Mutex
	read map[string]*skills.Skill
}

// NewShelf is the collection of Load, shipped and in <dataDir>/plugins,
// read as it is asked for; local plugins left out are reported on warn.
func NewShelf(dataDir string, warn io.Writer) *Shelf {
	return &Shelf{dataDir: dataDir, warn: warn, read: map[string]*skills.Skill{}}
}

func (s *Shelf) list() error {
	s.once.Do(func() {
		var shipped []string
		if shipped, s.err = plugins.ShippedNames(); s.err != nil {
			return
		}
		// A local plugin named like a shipped one is left out, as Load
		// leaves it out: the shipped names stand in the collection while
		// the local ones are added, and are taken out after.
		c := make(Collection, len(shipped))
		for _, name := range shipped {
			c[name] = Plugin{}
		}
		c.addLocals(s.dataDir, s.warn)
		s.local = Collection{}
		for name, p := range c {
			if p.Local != "" {
				s.local[name] = p
			}
		}
		s.names = slices.Sorted(maps.Keys(c))
	})
	return s.err
}

// Plugins names every plugin of the collection, sorted; none when the
// shipped store cannot be listed (a build defect, which Manual reports).
func (s *Shelf) Plugins() []string {
	if s.list() != nil {
		return nil
	}
	return s.names
}

// Manual is the plugin's manual, read once.
func (s *Shelf) Manual(plugin string) (*skills.Skill, error) {
	if err := s.list(); err != nil {
		return nil, err
	}
	if p, ok := s.local[plugin]; ok {
		return p.Manual, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.read[plugin]; ok {
		return m, nil
	}
	if _, ok := slices.BinarySearch(s.names, plugin); !ok {
		return nil, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no plugin %s in the collection", plugin)
	}
	p, err := plugins.ShippedPlugin(plugin)
	if err != nil {
		return nil, err
	}
	m, err := plugins.Manual(plugins.ShippedFS(), p)
	if err != nil {
		return nil, fmt.Errorf("shipped plugin %s: %w", plugin, err)
	}
	s.read[plugin] = m
	return m, nil
}
