package skills_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

func openDB(t *testing.T, dir string) *sqlstore.DB {
	t.Helper()
	db, err := sqlstore.Open(context.Background(), filepath.Join(dir, "jarvisbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestAddOwnRecordsWhatWasIgnoredS6: an imported skill is installed on,
// with a record of its source and the fields left out; a second one of the
// same name is refused with how to make room.
func TestAddOwnRecordsWhatWasIgnoredS6(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	db := openDB(t, data)
	src := writeImportFolder(t, "claude-review")
	in, err := skills.ImportFrom(ctx, nil, src)
	if err != nil {
		t.Fatal(err)
	}
	if err := skills.AddOwn(ctx, db, data, src, in); err != nil {
		t.Fatal(err)
	}
	rec, err := db.SkillRecord(ctx, "skill:claude-review")
	if err != nil || rec.Origin != store.SkillImported || rec.Source != src || len(rec.Dropped) == 0 {
		t.Errorf("record %+v, %v", rec, err)
	}
	if _, err := skills.InstallPath(data, "claude-review"); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT || !strings.Contains(err.Error(), "jarvisbot skills remove claude-review") {
		t.Errorf("installing it twice: %v", err)
	}
}

// TestPromoteAndRemoveS7X1: an agent's skill is promoted off, moved to the
// owner's folder with a record; removing it forgets record and switch; a
// skill that is not the owner's is not found, and a name that is a path
// is refused.
func TestPromoteAndRemoveS7X1(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	db := openDB(t, data)
	writeSkillFile(t, skills.AgentDir(data, "ops").Path(), "deploy", plainSkill("deploy", "deploy"))
	s, err := skills.Promote(ctx, db, data, "ops", "skill:deploy")
	if err != nil || s.Name != "deploy" {
		t.Fatalf("promote: %v, %v", s, err)
	}
	sw, err := db.SkillSwitches(ctx)
	if err != nil || sw["skill:deploy"] {
		t.Errorf("switches after promote: %v, %v; want deploy off", sw, err)
	}
	if _, err := os.Stat(filepath.Join(skills.OwnDir(data).Path(), "deploy", skills.FileName)); err != nil {
		t.Errorf("the promoted skill is not in the owner's folder: %v", err)
	}
	if _, err := skills.Promote(ctx, db, data, "ops", "deploy"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("promoting it again: %v", err)
	}
	if link, err := skills.RemoveOwn(ctx, db, data, "deploy"); err != nil || link {
		t.Fatalf("remove: link %v, %v", link, err)
	}
	if _, err := db.SkillRecord(ctx, "skill:deploy"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("record after remove: %v", err)
	}
	if sw, _ := db.SkillSwitches(ctx); len(sw) != 0 {
		t.Errorf("switches after remove: %v", sw)
	}
	if _, err := skills.RemoveOwn(ctx, db, data, "humanizer"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("removing a shipped skill: %v", err)
	}
	if _, err := skills.RemoveOwn(ctx, db, data, "../x"); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("removing ../x: %v", err)
	}
}
