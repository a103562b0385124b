package local

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/namedir"
	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// demoManual claims behaviour an imported skill may not have.
const demoManual = "---\nname: demo\ndescription: Use when the owner asks about Demo widgets.\nmetadata:\n" +
	"  jarvisbot.plugin: demo\n  jarvisbot.words: widget, gadget\n  jarvisbot.tier: safe\n  jarvisbot.does: tools\n---\n# Demo\nUse the demo tools.\n"

func writePlugin(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	files := map[string]string{
		"plugin.json": `{"$schema":"https://agent-plugins.org/schemas/1.0.0/plugin.schema.json","name":"` + name + `","version":"1.0.0","description":"Demo widgets.",
		"extensions":{"dev.jarvisbot":{"displayName":"Demo","signIn":{"method":"none"}}}}`,
		"skills/" + name + "/SKILL.md": strings.ReplaceAll(demoManual, "demo", name),
		"skills/helper/SKILL.md":       "---\nname: helper\ndescription: Helps.\n---\nHelp.\n",
	}
	for rel, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type env struct {
	db  *sqlstore.DB
	dir namedir.Dir
}

func newEnv(t *testing.T) env {
	t.Helper()
	data := t.TempDir()
	db, err := sqlstore.Open(context.Background(), filepath.Join(data, "jarvisbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return env{db: db, dir: namedir.New(filepath.Join(data, "plugins"), "plugin", plugins.ValidName)}
}

func (e env) installer(answer bool, shown *Staged) Installer {
	return Installer{
		Dir: e.dir, Store: e.db,
		Shipped: func(name string) (*plugins.Plugin, bool) {
			return &plugins.Plugin{Manifest: plugins.Manifest{Name: "github"}}, name == "github"
		},
		Manual: func(dir string, p *plugins.Plugin) (*skills.Skill, error) {
			q := *p
			q.Dir = "."
			return plugins.Manual(os.DirFS(dir), &q)
		},
		Consent: func(st Staged) (bool, error) { *shown = st; return answer, nil },
	}
}

// TestInstallUntrustedDropsGrantingFieldsS6X2: the owner sees the staged
// copy, manual first, with every field that would grant behaviour listed;
// on yes the installed copy holds the skills without those fields and the
// store records where it came from and what was left out.
func TestInstallUntrustedDropsGrantingFieldsS6X2(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	src := writePlugin(t, "demo")
	var shown Staged
	done, err := e.installer(true, &shown).Install(ctx, src)
	if err != nil || done == nil {
		t.Fatalf("install: %v %v", done, err)
	}
	if len(shown.Skills) != 2 || !shown.Skills[0].Manual || shown.Skills[0].Rel != "skills/demo/SKILL.md" || !strings.Contains(shown.Skills[0].Original, "jarvisbot.tier: safe") {
		t.Fatalf("shown %+v", shown.Skills)
	}
	if done.Dir != filepath.Join(e.dir.Path(), "demo") || done.Manual.Name != "demo" || done.Manual.Does != skills.KindTools {
		t.Errorf("installed %+v, manual %+v", done, done.Manual)
	}
	b, err := os.ReadFile(filepath.Join(done.Dir, "skills/demo/SKILL.md"))
	if err != nil || strings.Contains(string(b), "jarvisbot.words") || strings.Contains(string(b), "jarvisbot.tier") {
		t.Errorf("the installed manual keeps what it may not grant:\n%s (%v)", b, err)
	}
	rec, err := e.db.SkillRecord(ctx, "skill:demo")
	if err != nil || !strings.Contains(rec.Source, "not trusted") || !strings.Contains(strings.Join(rec.Dropped, "\n"), "skills/demo/SKILL.md: metadata.jarvisbot.tier") {
		t.Errorf("record %+v (%v)", rec, err)
	}
	if left, _ := filepath.Glob(filepath.Join(e.dir.Path(), ".install-*")); len(left) != 0 {
		t.Errorf("staging left behind: %v", left)
	}
}

// TestInstallRefusalsLeaveNothingP1X2: an owner's no, a shipped plugin's
// name and a name installed already install nothing and leave no copy.
func TestInstallRefusalsLeaveNothingP1X2(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	var shown Staged
	if done, err := e.installer(false, &shown).Install(ctx, writePlugin(t, "demo")); err != nil || done != nil || shown.Plugin == nil {
		t.Errorf("said no: %v %v (shown %v)", done, err, shown.Plugin != nil)
	}
	if _, err := e.installer(true, &shown).Install(ctx, writePlugin(t, "github")); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT || !strings.Contains(err.Error(), "ships with jarvisbot") {
		t.Errorf("a shipped name: %v, want ECONFLICT", err)
	}
	if err := e.db.InstallPlugin(ctx, "other", store.PluginInstalled); err != nil {
		t.Fatal(err)
	}
	if _, err := e.installer(true, &shown).Install(ctx, writePlugin(t, "other")); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT || !strings.Contains(err.Error(), "installed already") {
		t.Errorf("an installed name: %v, want ECONFLICT", err)
	}
	if left, _ := os.ReadDir(e.dir.Path()); len(left) != 0 {
		t.Errorf("refused installs left %d entries in the plugins folder", len(left))
	}
}
