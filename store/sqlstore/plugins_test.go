package sqlstore

import (
	"context"
	"slices"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestPluginsP2: install once, state changes, persists across reopen,
// removal; every refusal has its code.
func TestPluginsP2(t *testing.T) {
	ctx := context.Background()
	path := testTarget(t)
	db := openTest(t, path)
	if err := db.InstallPlugin(ctx, "github", store.PluginInstalled); err != nil {
		t.Fatal(err)
	}
	if err := db.InstallPlugin(ctx, "github", store.PluginInstalled); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
		t.Errorf("second install: %v", err)
	}
	if err := db.InstallPlugin(ctx, "notion", "half-done"); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("bad state: %v", err)
	}
	if err := db.InstallPlugin(ctx, "gmail", store.PluginInstalled); err != nil {
		t.Fatal(err)
	}
	if err := db.SetPluginState(ctx, "gmail", store.PluginNeedsAttention); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = openTest(t, path)
	list, err := db.InstalledPlugins(ctx)
	if err != nil || len(list) != 2 || list[0].Name != "github" || list[1].State != store.PluginNeedsAttention || list[0].InstalledAt.IsZero() {
		t.Fatalf("plugins %+v %v", list, err)
	}
	if err := db.RemovePlugin(ctx, "github"); err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{
		db.RemovePlugin(ctx, "github"),
		db.SetPluginState(ctx, "github", store.PluginConnected),
		func() error { _, err := db.InstalledPlugin(ctx, "github"); return err }(),
	} {
		if jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
			t.Errorf("after removal: %v", err)
		}
	}
}

// TestSkillRecordsS6: the dropped list of an import is kept and shown.
func TestSkillRecordsS6(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	r := store.SkillRecord{Skill: "skill:pdf", Origin: store.SkillImported, Source: "/tmp/pdf", Dropped: []string{"allowed-tools: grants tools", "hooks: runs commands"}}
	if err := db.RecordSkill(ctx, r); err != nil {
		t.Fatal(err)
	}
	got, err := db.SkillRecord(ctx, "skill:pdf")
	if err != nil || got.Origin != store.SkillImported || got.Source != "/tmp/pdf" || !slices.Equal(got.Dropped, r.Dropped) {
		t.Errorf("record %+v %v", got, err)
	}
	if err := db.RecordSkill(ctx, store.SkillRecord{Skill: "skill:pdf", Origin: "stolen"}); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("bad origin: %v", err)
	}
	if err := db.ForgetSkill(ctx, "skill:pdf"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SkillRecord(ctx, "skill:pdf"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("after forget: %v", err)
	}
}
