package sqlstore

import (
	"context"
	"testing"

	"github.com/jarvisbot/jarvisbot"
)

// TestSkillSwitchesS5: a switch persists across reopen, the latest word
// wins, and clearing returns the skill to its default.
func TestSkillSwitchesS5(t *testing.T) {
	ctx := context.Background()
	path := testTarget(t)
	db := openTest(t, path)
	if err := db.SetSkillEnabled(ctx, "skill:humanizer", false); err != nil {
		t.Fatal(err)
	}
	if err := db.SetSkillEnabled(ctx, "skill:github", true); err != nil {
		t.Fatal(err)
	}
	if err := db.SetSkillEnabled(ctx, "skill:github", false); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = openTest(t, path)
	got, err := db.SkillSwitches(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["skill:humanizer"] || got["skill:github"] {
		t.Errorf("switches = %v", got)
	}
	if err := db.ClearSkillSwitch(ctx, "skill:github"); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.SkillSwitches(ctx); len(got) != 1 {
		t.Errorf("after clear: %v", got)
	}
	for _, bad := range []string{"", "humanizer", "skill:", "plugin:x"} {
		if err := db.SetSkillEnabled(ctx, bad, true); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
			t.Errorf("SetSkillEnabled(%q) = %v, want EINVALID", bad, err)
		}
	}
}
