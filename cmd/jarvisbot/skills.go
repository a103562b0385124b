package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/jarvisbot/jarvisbot/config"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// skillsDir is where the owner's skills live: <data dir>/skills/NAME/SKILL.md.
func skillsDir(cfg config.Config) string { return filepath.Join(cfg.DataDir, "skills") }

// loadSkills reads every skill folder under the data dir's skills folder
// and leaves out the ones the owner switched off (S5). A broken SKILL.md
// is reported on warn and skipped: one bad file never stops the others.
func loadSkills(ctx context.Context, cfg config.Config, sw store.SkillSwitches, warn io.Writer) ([]*skills.Skill, error) {
	entries, err := os.ReadDir(skillsDir(cfg))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read skills folder: %w", err)
	}
	switches, err := sw.SkillSwitches(ctx)
	if err != nil {
		return nil, err
	}
	var out []*skills.Skill
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		s, err := skills.Load(filepath.Join(skillsDir(cfg), e.Name()))
		if err != nil {
			fmt.Fprintf(warn, "jarvisbot: skipping skill %s: %v\n", e.Name(), err)
			continue
		}
		if on, ok := switches["skill:"+s.Name]; ok && !on {
			continue
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
