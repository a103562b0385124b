package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// skillIn is the skill named name in l, and whether it is there.
func skillIn(l SkillList, name string) (skills.Available, bool) {
	for _, e := range l.Skills {
		if e.Skill.Name == name {
			return e, true
		}
	}
	return skills.Available{}, false
}

// TestSkillSwitchS5: a shipped skill switched off is off for every later
// list, and the switch says so; a skill that does not exist is ENOTFOUND.
func TestSkillSwitchS5(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	l, err := in.ListSkills(ctx, store.DefaultAgent)
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := skillIn(l, "humanizer"); !ok || !e.On || e.Source != skills.SourceShipped {
		t.Fatalf("the shipped humanizer to begin with: %+v %v", e, ok)
	}
	sw, err := in.SwitchSkill(ctx, store.DefaultAgent, "skill:humanizer", false)
	if err != nil || sw.Note() != "skill:humanizer is off." {
		t.Fatalf("switching off: %+v %v", sw, err)
	}
	l, _ = in.ListSkills(ctx, store.DefaultAgent)
	if e, _ := skillIn(l, "humanizer"); e.On || e.State() != "off (switched off)" {
		t.Errorf("after the switch: %+v", e)
	}
	if _, err := in.SwitchSkill(ctx, store.DefaultAgent, "no-such-skill", true); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("switching a missing skill: %v", err)
	}
}

// TestSkillInstallAsReadS6X2: an uploaded SKILL.md is read first (the
// consent view shows its escapes and the fields it drops; nothing is
// written), installed only as it was read, on, with the record ShowSkill
// gives; a second of the same name is refused at reading.
func TestSkillInstallAsReadS6X2(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	text := "---\nname: packing-list\ndescription: Writes a packing list for a trip from its length and the weather.\nallowed-tools: Bash(rm:*)\n---\nAsk how many days, then list clothes \x1b[8mand hide this\x1b[0m by category.\n"
	o, err := in.ReadSkillUpload("SKILL.md", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	view := o.View()
	for _, want := range []string{`\x1b[8m`, "allowed-tools", "control or invisible character", "It will add instructions only", "uploaded to the dashboard"} {
		if !strings.Contains(view, want) {
			t.Errorf("the consent view lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "\x1b") || o.Dest != filepath.Join(in.Config.DataDir, "skills", "packing-list") {
		t.Errorf("the offer: dest %s, view\n%s", o.Dest, view)
	}
	if l, _ := in.ListSkills(ctx, store.DefaultAgent); func() bool { _, ok := skillIn(l, "packing-list"); return ok }() {
		t.Fatal("installed by reading")
	}
	if _, err := in.InstallSkillAsRead(ctx, o, strings.Replace(text, "days", "weeks", 1)); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
		t.Fatalf("installing another text than the one read: %v", err)
	}
	r, err := in.InstallSkillAsRead(ctx, o, text)
	if err != nil || !strings.HasPrefix(r.Note(), "Installed skill:packing-list (on)") {
		t.Fatalf("installing: %+v %v", r, err)
	}
	s, err := in.ShowSkill(ctx, store.DefaultAgent, "packing-list")
	if err != nil || !s.On || s.Source != skills.SourceOwner || s.Record == nil || len(s.Record.Dropped) == 0 {
		t.Fatalf("the installed skill: %+v %v", s, err)
	}
	if !strings.Contains(s.Text(), "allowed-tools") {
		t.Errorf("show does not say what was dropped:\n%s", s.Text())
	}
	if _, err := in.ReadSkillUpload("SKILL.md", []byte(text)); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
		t.Errorf("reading a skill installed already: %v", err)
	}
}

// TestSkillPromoteAndRemoveS7: an agent's own skill is promoted as a
// draft, off, and removed again; a shipped skill cannot be removed, and
// the error says to switch it off.
func TestSkillPromoteAndRemoveS7(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	writeSkill(t, filepath.Join(skills.AgentsDir(in.Config.DataDir).Path(), "default", "skills"), "trip-notes", "---\nname: trip-notes\ndescription: Keeps notes of a trip day by day.\n---\nOne line a day.\n")
	l, _ := in.ListSkills(ctx, store.DefaultAgent)
	if e, ok := skillIn(l, "trip-notes"); !ok || e.Source != skills.SourceAgent {
		t.Fatalf("the agent's own skill: %+v %v", e, ok)
	}
	p, err := in.PromoteSkill(ctx, store.DefaultAgent, "trip-notes")
	if err != nil || !strings.HasPrefix(p.Note(), "Promoted skill:trip-notes from agent default to all of jarvisbot as a draft (off)") {
		t.Fatalf("promoting: %+v %v", p, err)
	}
	s, err := in.ShowSkill(ctx, "", "trip-notes")
	if err != nil || s.On || s.Source != skills.SourceOwner {
		t.Fatalf("the promoted skill: %+v %v", s, err)
	}
	if _, err := in.RemoveSkill(ctx, store.DefaultAgent, "humanizer"); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "switch it off instead") {
		t.Errorf("removing a shipped skill: %v", err)
	}
	r, err := in.RemoveSkill(ctx, store.DefaultAgent, "skill:trip-notes")
	if err != nil || r.Note() != "Removed skill:trip-notes." {
		t.Fatalf("removing: %+v %v", r, err)
	}
}

// TestSkillWarningsAreValues: a broken SKILL.md is left out and comes back
// as a warning with the result, also with an error.
func TestSkillWarningsAreValues(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	writeSkill(t, skills.OwnDir(in.Config.DataDir).Path(), "broken", "no front matter at all\n")
	l, err := in.ListSkills(ctx, store.DefaultAgent)
	if err != nil || len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], "skipping skill broken") {
		t.Fatalf("list: %q %v", l.Warnings, err)
	}
	s, err := in.ShowSkill(ctx, store.DefaultAgent, "no-such-skill")
	if jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND || len(s.Warnings) != 1 {
		t.Errorf("show of a missing skill: %q %v", s.Warnings, err)
	}
}
