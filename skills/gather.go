package skills

import (
	"context"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"sort"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/namedir"
	"github.com/jarvisbot/jarvisbot/internal/names"
	"github.com/jarvisbot/jarvisbot/internal/visible"
)

// OwnDir is where the owner's skills live: <data dir>/skills/NAME/SKILL.md.
// Every skill name becomes a path there only through it (X1).
func OwnDir(dataDir string) namedir.Dir { return Folder(filepath.Join(dataDir, "skills")) }

// AgentsDir holds one folder per agent: <data dir>/agents/NAME.
func AgentsDir(dataDir string) namedir.Dir {
	return namedir.New(filepath.Join(dataDir, "agents"), "agent", names.ValidAgent)
}

// AgentDir is where an agent keeps the skills it wrote (S7):
// <data dir>/agents/NAME/skills/SKILL/SKILL.md. They are active for that
// agent only, until the owner promotes one. An agent name that is not
// valid gives a Dir that refuses every use.
func AgentDir(dataDir, agent string) namedir.Dir {
	return AgentsDir(dataDir).Sub(agent, func(p string) namedir.Dir { return Folder(filepath.Join(p, "skills")) })
}

// Source is where a skill comes from; the constants are in rising
// precedence.
type Source string

const (
	SourceShipped Source = "shipped" // a general skill in the binary
	SourceManual  Source = "manual"  // a store plugin's manual
	SourceOwner   Source = "yours"   // the owner's skills folder (written, imported, promoted)
	SourceAgent   Source = "agent"   // the agent's own folder (S7)
)

// Why a skill is off.
const (
	WhyNotInstalled = "plugin not installed"
	WhySwitchedOff  = "switched off"
)

// Available is one skill with where it comes from and whether it is on.
type Available struct {
	Skill  *Skill
	Source Source
	On     bool
	Why    string // why it is off
}

// State is "on", or "off (why)".
func (a Available) State() string {
	if a.On {
		return "on"
	}
	return "off (" + a.Why + ")"
}

// Switches reads the owner's switches (S5) by skill id ("skill:NAME").
type Switches interface {
	SkillSwitches(ctx context.Context) (map[string]bool, error)
}

// Scope says which skills a turn may draw on.
type Scope struct {
	DataDir string // holds the owner's and the agents' skill folders
	Agent   string // the agent whose own skills join (S7); "" for none
	// General are the shipped general skills; nil reads them from the
	// binary (the service reads them once and passes them in).
	General []*Skill
	// Manuals are the plugin collection's manuals; those of Connected
	// plugins are on (S2). ConnectAll treats every plugin as connected,
	// for evaluation.
	Manuals    ManualSource
	Connected  map[string]bool
	ConnectAll bool
}

// ManualSource is a plugin collection's manuals by plugin name. A manual is
// named like its plugin (its folder is), so a plugin's name is its
// manual's.
type ManualSource interface {
	// Plugins names every plugin of the collection.
	Plugins() []string
	// Manual is the plugin's manual, or why it cannot be read.
	Manual(plugin string) (*Skill, error)
}

// ManualMap is a collection's manuals read already.
type ManualMap map[string]*Skill

// Plugins names the map's plugins.
func (m ManualMap) Plugins() []string { return slices.Collect(maps.Keys(m)) }

// Manual is the plugin's manual; ENOTFOUND for a plugin the map lacks.
func (m ManualMap) Manual(plugin string) (*Skill, error) {
	if s, ok := m[plugin]; ok {
		return s, nil
	}
	return nil, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no plugin %s in the collection", plugin)
}

// Gather lists every skill a turn of the scope's agent could draw on, in
// rising precedence: the shipped general skills, the plugins' manuals (on
// when their plugin is connected), the owner's skills and the agent's own.
// A later skill of the same name replaces an earlier one (the owner's
// "humanizer" is used instead of the shipped one). The owner's switch (S5)
// wins over every default. Broken skill files are reported on warn and
// left out. The list is sorted by name.
func Gather(ctx context.Context, sw Switches, sc Scope, warn io.Writer) ([]Available, error) {
	return sc.gather(ctx, sw, warn, false)
}

// gather is Gather; onlyOn reads no manual of a plugin that is not
// connected (Enabled leaves it out anyway): it stands in the list by its
// name alone, which still replaces an earlier skill of that name.
func (sc Scope) gather(ctx context.Context, sw Switches, warn io.Writer, onlyOn bool) ([]Available, error) {
	all, err := sc.candidates(warn, onlyOn)
	if err != nil {
		return nil, err
	}
	switches, err := sw.SkillSwitches(ctx)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]int, len(all))
	var out []Available
	for _, e := range all {
		if on, ok := switches["skill:"+e.Skill.Name]; ok && !on {
			e.On, e.Why = false, WhySwitchedOff
		}
		if i, ok := byName[e.Skill.Name]; ok {
			out[i] = e
			continue
		}
		byName[e.Skill.Name] = len(out)
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Skill.Name < out[j].Skill.Name })
	return out, nil
}

// candidates lists the scope's skills in rising precedence, before the
// owner's switches and before a name's later skill replaces the earlier.
func (sc Scope) candidates(warn io.Writer, onlyOn bool) ([]Available, error) {
	general := sc.General
	if general == nil {
		var err error
		if general, err = Shipped(); err != nil {
			return nil, err
		}
	}
	var all []Available
	for _, s := range general {
		all = append(all, Available{Skill: s, Source: SourceShipped, On: true})
	}
	var plugins []string
	if sc.Manuals != nil {
		plugins = slices.Sorted(slices.Values(sc.Manuals.Plugins()))
	}
	for _, id := range plugins {
		e := Available{Source: SourceManual, On: sc.ConnectAll || sc.Connected[id]}
		if !e.On {
			e.Why = WhyNotInstalled
		}
		if !e.On && onlyOn {
			e.Skill = &Skill{Name: id, Plugin: id}
			all = append(all, e)
			continue
		}
		m, err := sc.Manuals.Manual(id)
		if err != nil {
			fmt.Fprintf(warn, "jarvisbot: skipping the manual of plugin %s: %v\n", visible.Text(id), err)
			continue
		}
		e.Skill = m
		all = append(all, e)
	}
	type folder struct {
		dir    namedir.Dir
		source Source
	}
	folders := []folder{{OwnDir(sc.DataDir), SourceOwner}}
	if sc.Agent != "" {
		folders = append(folders, folder{AgentDir(sc.DataDir, sc.Agent), SourceAgent})
	}
	for _, f := range folders {
		list, err := ReadFolder(f.dir, warn)
		if err != nil {
			return nil, err
		}
		for _, s := range list {
			all = append(all, Available{Skill: s, Source: f.source, On: true})
		}
	}
	return all, nil
}

// Enabled returns the skills that are on for the scope (S2, S5, S7).
func Enabled(ctx context.Context, sw Switches, sc Scope, warn io.Writer) ([]*Skill, error) {
	all, err := sc.gather(ctx, sw, warn, true)
	if err != nil {
		return nil, err
	}
	var out []*Skill
	for _, e := range all {
		if e.On {
			out = append(out, e.Skill)
		}
	}
	return out, nil
}

// ReadFolder reads every skill folder in dir; links and files there are
// not skills. A broken SKILL.md is reported on warn and skipped: one bad
// file never stops the others.
func ReadFolder(dir namedir.Dir, warn io.Writer) ([]*Skill, error) {
	if err := dir.Err(); err != nil {
		return nil, err // an agent name that is no plain name
	}
	names, refused, err := dir.Names()
	if err != nil {
		return nil, fmt.Errorf("read skills folder: %w", err)
	}
	for _, name := range refused {
		fmt.Fprintf(warn, "jarvisbot: skipping skill folder %s: %v\n", visible.Text(name), dir.Check(name))
	}
	var out []*Skill
	for _, name := range names {
		s, err := Load(filepath.Join(dir.Path(), name))
		if err != nil {
			fmt.Fprintf(warn, "jarvisbot: skipping skill %s: %v\n", visible.Text(name), err)
			continue
		}
		out = append(out, s)
	}
	return out, nil
}
