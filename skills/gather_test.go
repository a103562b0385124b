package skills_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/skills"
)

type switches map[string]bool

func (s switches) SkillSwitches(context.Context) (map[string]bool, error) { return s, nil }

func writeSkillFile(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, name), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name, skills.FileName), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func plainSkill(name, words string) string {
	return "---\nname: " + name + "\ndescription: Use when " + words + ".\nmetadata:\n  jarvisbot.words: " + words + "\n---\nDo it.\n"
}

// TestGatherPrecedenceS2S5S7: a skill of the same name from a later
// source replaces an earlier one (shipped < manual < owner's < agent's),
// a manual is on only while its plugin is connected, the owner's switch
// wins over every default, and a broken file is reported, not fatal.
func TestGatherPrecedenceS2S5S7(t *testing.T) {
	data := t.TempDir()
	own := skills.OwnDir(data).Path()
	writeSkillFile(t, own, "humanizer", plainSkill("humanizer", "humanize"))
	writeSkillFile(t, own, "mine", plainSkill("mine", "mine"))
	writeSkillFile(t, own, "broken", "no front matter")
	writeSkillFile(t, skills.AgentDir(data, "ops").Path(), "mine", plainSkill("mine", "ops words"))
	writeSkillFile(t, skills.AgentDir(data, "ops").Path(), "agentonly", plainSkill("agentonly", "agent"))
	manuals := skills.ManualMap{
		"asana": {Name: "asana", Plugin: "asana"},
		"box":   {Name: "box", Plugin: "box"},
	}
	general := []*skills.Skill{{Name: "humanizer"}, {Name: "morning-brief"}}
	sc := skills.Scope{DataDir: data, Agent: "ops", General: general, Manuals: manuals, Connected: map[string]bool{"asana": true}}
	var warn bytes.Buffer
	got, err := skills.Gather(context.Background(), switches{"skill:morning-brief": false}, sc, &warn)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name   string
		source skills.Source
		state  string
	}{
		{"agentonly", skills.SourceAgent, "on"},
		{"asana", skills.SourceManual, "on"},
		{"box", skills.SourceManual, "off (plugin not installed)"},
		{"humanizer", skills.SourceOwner, "on"},
		{"mine", skills.SourceAgent, "on"},
		{"morning-brief", skills.SourceShipped, "off (switched off)"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d skills, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if g := got[i]; g.Skill.Name != w.name || g.Source != w.source || g.State() != w.state {
			t.Errorf("%d: got %s from %s %s, want %s from %s %s", i, g.Skill.Name, g.Source, g.State(), w.name, w.source, w.state)
		}
	}
	if !strings.Contains(warn.String(), "skipping skill broken") {
		t.Errorf("the broken skill was not reported: %q", warn.String())
	}
	sc.ConnectAll, sc.Agent = true, ""
	on, err := skills.Enabled(context.Background(), switches{}, sc, &warn)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range on {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "asana,box,humanizer,mine,morning-brief" {
		t.Errorf("enabled with every plugin connected and no agent: %v", names)
	}
}

// shelf is a collection whose manuals are read when asked for, recording
// which were; broken names a plugin whose manual cannot be read.
type shelf struct {
	skills.ManualMap
	broken string
	asked  []string
}

func (s *shelf) Plugins() []string {
	return append(s.ManualMap.Plugins(), s.broken)
}

func (s *shelf) Manual(plugin string) (*skills.Skill, error) {
	s.asked = append(s.asked, plugin)
	if plugin == s.broken {
		return nil, errors.New("its SKILL.md has no front matter")
	}
	return s.ManualMap.Manual(plugin)
}

// TestEnabledReadsOnlyConnectedManualsS2: a turn's skills read the manuals
// of connected plugins alone, and are the ones Gather has on: a manual of
// a plugin not connected still replaces the shipped skill of its name, and
// one that cannot be read is reported and left out.
func TestEnabledReadsOnlyConnectedManualsS2(t *testing.T) {
	manuals := &shelf{ManualMap: skills.ManualMap{
		"asana":     {Name: "asana", Plugin: "asana"},
		"box":       {Name: "box", Plugin: "box"},
		"humanizer": {Name: "humanizer", Plugin: "humanizer"},
	}, broken: "figma"}
	general := []*skills.Skill{{Name: "humanizer"}, {Name: "morning-brief"}}
	sc := skills.Scope{DataDir: t.TempDir(), General: general, Manuals: manuals, Connected: map[string]bool{"asana": true, "figma": true}}
	var warn bytes.Buffer
	on, err := skills.Enabled(context.Background(), switches{}, sc, &warn)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(manuals.asked)
	if got := strings.Join(manuals.asked, ","); got != "asana,figma" {
		t.Errorf("manuals read for the turn: %s, want only the connected plugins' (asana,figma)", got)
	}
	if !strings.Contains(warn.String(), "manual of plugin figma") {
		t.Errorf("the unreadable manual was not reported: %q", warn.String())
	}
	all, err := skills.Gather(context.Background(), switches{}, sc, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var names, gathered []string
	for _, s := range on {
		names = append(names, s.Name)
	}
	for _, a := range all {
		if a.On {
			gathered = append(gathered, a.Skill.Name)
		}
	}
	if strings.Join(names, ",") != "asana,morning-brief" || !slices.Equal(names, gathered) {
		t.Errorf("enabled %v, gathered on %v; want asana and morning-brief in both (humanizer's manual is off and replaces the shipped one)", names, gathered)
	}
}

// TestGatherRefusesBadAgentNameX1: an agent name that is no plain name
// never becomes a path.
func TestGatherRefusesBadAgentNameX1(t *testing.T) {
	sc := skills.Scope{DataDir: t.TempDir(), Agent: "../etc", General: []*skills.Skill{}}
	if _, err := skills.Gather(context.Background(), switches{}, sc, &bytes.Buffer{}); err == nil {
		t.Error("an agent named ../etc was read")
	}
}
