package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/namedir"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// ownSkills is where the owner's skills live: <data dir>/skills/NAME/SKILL.md.
// Every skill name becomes a path there only through it (X1).
func ownSkills(cfg config.Config) namedir.Dir {
	return skills.Folder(filepath.Join(cfg.DataDir, "skills"))
}

// agentFolders holds one folder per agent: <data dir>/agents/NAME.
func agentFolders(cfg config.Config) namedir.Dir {
	return namedir.New(filepath.Join(cfg.DataDir, "agents"), "agent", store.ValidAgentName)
}

// agentSkillsDir is where an agent keeps the skills it wrote (S7):
// <data dir>/agents/NAME/skills/SKILL/SKILL.md. They are active for that
// agent only, until the owner promotes one. An agent name that is not
// valid gives a Dir that refuses every use.
func agentSkillsDir(cfg config.Config, agent string) namedir.Dir {
	return agentFolders(cfg).Sub(agent, func(p string) namedir.Dir { return skills.Folder(filepath.Join(p, "skills")) })
}

// skillScope says which skills a turn may draw on.
type skillScope struct {
	agent string // the agent whose own skills join (S7)
	// connected holds the store plugins whose manuals are on (S2);
	// connectAll treats every store plugin as connected, for evaluation.
	connected  map[string]bool
	connectAll bool
	// shop and general, when set, are the plugin store and the shipped
	// general skills already loaded (the service loads them once).
	shop    map[string]shipped
	general []*skills.Skill
}

// connectedPlugins are the plugins whose manuals are on: those installed
// (and not waiting for a renewed sign-in) and those whose server is
// connected in the catalog.
func connectedPlugins(ctx context.Context, db store.Plugins, v *catalog.View) (map[string]bool, error) {
	on := map[string]bool{}
	for _, srv := range v.Servers() {
		if srv.Connected && srv.Plugin != "" {
			on[srv.Plugin] = true
		}
	}
	return on, installedPlugins(ctx, db, on)
}

// installedPlugins adds to on the plugins whose manual's words are on:
// installed or connected, not waiting for a renewed sign-in (S2, P4).
func installedPlugins(ctx context.Context, db store.Plugins, on map[string]bool) error {
	list, err := db.InstalledPlugins(ctx)
	if err != nil {
		return err
	}
	for _, p := range list {
		if p.State != store.PluginNeedsAttention {
			on[p.Name] = true
		}
	}
	return nil
}

// Where a skill comes from, in rising precedence.
const (
	sourceShipped = "shipped" // a general skill in the binary
	sourceManual  = "manual"  // a store plugin's manual
	sourceOwner   = "yours"   // the owner's skills folder (written, imported, promoted)
	sourceAgent   = "agent"   // the agent's own folder (S7)
)

// Why a skill is off.
const (
	whyNotInstalled = "plugin not installed"
	whySwitchedOff  = "switched off"
)

// skillEntry is one skill with where it comes from and whether it is on.
type skillEntry struct {
	skill  *skills.Skill
	source string
	on     bool
	why    string // why it is off
}

func (e skillEntry) state() string {
	if e.on {
		return "on"
	}
	return "off (" + e.why + ")"
}

// gatherSkills lists every skill a turn of the scope's agent could draw
// on, in rising precedence: the shipped general skills, the store's
// manuals (on when their plugin is connected), the owner's skills and the
// agent's own. A later skill of the same name replaces an earlier one (the
// owner's "humanizer" is used instead of the shipped one). The owner's
// switch (S5) wins over every default.
func gatherSkills(ctx context.Context, cfg config.Config, sw store.SkillSwitches, sc skillScope, warn io.Writer) ([]skillEntry, error) {
	var all []skillEntry
	general := sc.general
	if general == nil {
		var err error
		if general, err = skills.Shipped(); err != nil {
			return nil, err
		}
	}
	for _, s := range general {
		all = append(all, skillEntry{skill: s, source: sourceShipped, on: true})
	}
	shop := sc.shop
	if shop == nil {
		var err error
		if shop, err = loadStore(cfg, warn); err != nil {
			return nil, err
		}
	}
	for _, id := range sortedKeys(shop) {
		e := skillEntry{skill: shop[id].manual, source: sourceManual, on: sc.connectAll || sc.connected[id]}
		if !e.on {
			e.why = whyNotInstalled
		}
		all = append(all, e)
	}
	own, err := readSkillsDir(ownSkills(cfg), warn)
	if err != nil {
		return nil, err
	}
	for _, s := range own {
		all = append(all, skillEntry{skill: s, source: sourceOwner, on: true})
	}
	if sc.agent != "" {
		mine, err := readSkillsDir(agentSkillsDir(cfg, sc.agent), warn)
		if err != nil {
			return nil, err
		}
		for _, s := range mine {
			all = append(all, skillEntry{skill: s, source: sourceAgent, on: true})
		}
	}
	switches, err := sw.SkillSwitches(ctx)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]int, len(all))
	var out []skillEntry
	for _, e := range all {
		if on, ok := switches["skill:"+e.skill.Name]; ok && !on {
			e.on, e.why = false, whySwitchedOff
		}
		if i, ok := byName[e.skill.Name]; ok {
			out[i] = e
			continue
		}
		byName[e.skill.Name] = len(out)
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].skill.Name < out[j].skill.Name })
	return out, nil
}

// enabledSkills returns the skills that are on for the scope (S2, S5, S7).
func enabledSkills(ctx context.Context, cfg config.Config, sw store.SkillSwitches, sc skillScope, warn io.Writer) ([]*skills.Skill, error) {
	all, err := gatherSkills(ctx, cfg, sw, sc, warn)
	if err != nil {
		return nil, err
	}
	var out []*skills.Skill
	for _, e := range all {
		if e.on {
			out = append(out, e.skill)
		}
	}
	return out, nil
}

// readSkillsDir reads every skill folder in dir; links and files there
// are not skills. A broken SKILL.md is reported on warn and skipped: one
// bad file never stops the others.
func readSkillsDir(dir namedir.Dir, warn io.Writer) ([]*skills.Skill, error) {
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
	var out []*skills.Skill
	for _, name := range names {
		s, err := skills.Load(filepath.Join(dir.Path(), name))
		if err != nil {
			fmt.Fprintf(warn, "jarvisbot: skipping skill %s: %v\n", visible.Text(name), err)
			continue
		}
		out = append(out, s)
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
