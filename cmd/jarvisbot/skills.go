package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/jarvisbot/jarvisbot/config"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// skillsDir is where the owner's skills live: <data dir>/skills/NAME/SKILL.md.
func skillsDir(cfg config.Config) string { return filepath.Join(cfg.DataDir, "skills") }

// agentSkillsDir is where an agent keeps the skills it wrote (S7):
// <data dir>/agents/NAME/skills/SKILL/SKILL.md. They are active for that
// agent only, until the owner promotes one.
func agentSkillsDir(cfg config.Config, agent string) string {
	return filepath.Join(cfg.DataDir, "agents", agent, "skills")
}

// skillScope says which skills a turn may draw on.
type skillScope struct {
	agent string // the agent whose own skills join (S7)
	// connected holds the store plugins whose manuals are on (S2);
	// connectAll treats every store plugin as connected, for evaluation.
	connected  map[string]bool
	connectAll bool
}

// enabledSkills gathers the skills of a turn, in rising precedence: the
// shipped general skills, the manuals of connected plugins, the owner's
// skills and the agent's own. A later skill of the same name replaces an
// earlier one (the owner's "humanizer" is used instead of the shipped one).
// Skills the owner switched off are left out (S5).
func enabledSkills(ctx context.Context, cfg config.Config, sw store.SkillSwitches, sc skillScope, warn io.Writer) ([]*skills.Skill, error) {
	general, err := skills.Shipped()
	if err != nil {
		return nil, err
	}
	all := general
	store, err := loadShipped()
	if err != nil {
		return nil, err
	}
	for _, id := range sortedKeys(store) {
		if sc.connectAll || sc.connected[id] {
			all = append(all, store[id].manual)
		}
	}
	own, err := readSkillsDir(skillsDir(cfg), warn)
	if err != nil {
		return nil, err
	}
	all = append(all, own...)
	if sc.agent != "" {
		mine, err := readSkillsDir(agentSkillsDir(cfg, sc.agent), warn)
		if err != nil {
			return nil, err
		}
		all = append(all, mine...)
	}
	switches, err := sw.SkillSwitches(ctx)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]int, len(all))
	var out []*skills.Skill
	for _, s := range all {
		if i, ok := byName[s.Name]; ok {
			out[i] = s
			continue
		}
		byName[s.Name] = len(out)
		out = append(out, s)
	}
	out = slices.DeleteFunc(out, func(s *skills.Skill) bool {
		on, ok := switches["skill:"+s.Name]
		return ok && !on
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// readSkillsDir reads every skill folder in dir. A broken SKILL.md is
// reported on warn and skipped: one bad file never stops the others.
func readSkillsDir(dir string, warn io.Writer) ([]*skills.Skill, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read skills folder: %w", err)
	}
	var out []*skills.Skill
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		s, err := skills.Load(filepath.Join(dir, e.Name()))
		if err != nil {
			fmt.Fprintf(warn, "jarvisbot: skipping skill %s: %v\n", e.Name(), err)
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
