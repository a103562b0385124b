package skillbook

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/namedir"
	"github.com/jarvisbot/jarvisbot/skills"
)

// newBook returns a book whose enabled skills are a shipped one plus
// whatever the agent saved, read back from disk as the service does.
func newBook(t *testing.T) (*Book, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "agents", "default", "skills")
	shipped := &skills.Skill{Name: "humanizer", Description: "Rewrite text so it sounds human.", Body: "Prefer short sentences.\n"}
	return New(skills.Folder(dir), func(context.Context) ([]*skills.Skill, error) {
		list := []*skills.Skill{shipped}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			s, err := skills.Load(filepath.Join(dir, e.Name()))
			if err != nil {
				return nil, err
			}
			list = append(list, s)
		}
		return list, nil
	}), dir
}

func call(t *testing.T, b *Book, args string) (string, error) {
	t.Helper()
	return b.Call(context.Background(), json.RawMessage(args))
}

// TestUseByNameS3: the model can ask for any enabled skill by name.
func TestUseByNameS3(t *testing.T) {
	b, _ := newBook(t)
	out, err := call(t, b, `{"action":"use","name":"skill:humanizer"}`)
	if err != nil || !strings.Contains(out, "Prefer short sentences.") {
		t.Errorf("use: %q %v", out, err)
	}
	if _, err := call(t, b, `{"action":"use","name":"nope"}`); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("unknown skill: %v", err)
	}
	out, err = call(t, b, `{"action":"list"}`)
	if err != nil || !strings.Contains(out, "humanizer: Rewrite") {
		t.Errorf("list: %q %v", out, err)
	}
}

// TestSaveS7: a saved skill lands in the agent's folder, is valid, is
// active at once, and can grant nothing.
func TestSaveS7(t *testing.T) {
	b, dir := newBook(t)
	out, err := call(t, b, `{"action":"save","name":"weekly-report","description":"Write the weekly report from the wiki's notes.","body":"1. Search the wiki for this week.\n2. Summarise.","words":["weekly report"]}`)
	if err != nil || !strings.Contains(out, "saved skill weekly-report") {
		t.Fatalf("save: %q %v", out, err)
	}
	s, err := skills.Load(filepath.Join(dir, "weekly-report"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Does != skills.KindInstructions || s.Tier != "" || s.Schedule != "" || len(s.AllowedTools) != 0 || len(s.Words) != 1 {
		t.Errorf("saved skill %+v", s)
	}
	if out, err := call(t, b, `{"action":"use","name":"weekly-report"}`); err != nil || !strings.Contains(out, "Search the wiki") {
		t.Errorf("use the saved skill: %q %v", out, err)
	}
	if out, _ := call(t, b, `{"action":"save","name":"weekly-report","description":"Better.","body":"Step one."}`); !strings.Contains(out, "updated") {
		t.Errorf("second save: %q", out)
	}
}

func TestSaveBadInput(t *testing.T) {
	b, dir := newBook(t)
	for _, args := range []string{
		`{"action":"save","name":"../../etc","description":"x","body":"y"}`,
		`{"action":"save","name":"Bad Name","description":"x","body":"y"}`,
		`{"action":"save","name":"ok-name","description":"","body":"y"}`,
		`{"action":"save","name":"ok-name","description":"x","body":""}`,
		`{"action":"save","name":"ok-name","description":"x","body":"` + strings.Repeat("a", maxBody+1) + `"}`,
		`{"action":"save","name":"ok-name","description":"x","body":"y","tier":"safe"}`,
		`{"action":"fly"}`,
		`{}`,
		`not json`,
	} {
		if _, err := call(t, b, args); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
			t.Errorf("%.60s: %v", args, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("bad saves wrote %d entries", len(entries))
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(filepath.Dir(dir)), "etc")); err == nil {
		t.Error("path traversal wrote outside the folder")
	}
}

// TestSaveStaysInItsFolderX1: a saved skill's name is a plain skill name;
// a skill folder of the agent that is a link to a folder outside is not
// written through, and a SKILL.md that is a link is replaced, never the
// file it leads to.
func TestSaveStaysInItsFolderX1(t *testing.T) {
	b, dir := newBook(t)
	outside := t.TempDir()
	keep := filepath.Join(outside, "SKILL.md")
	os.WriteFile(keep, []byte("keep me"), 0o600)
	untouched := func(after string) {
		t.Helper()
		if data, err := os.ReadFile(keep); err != nil || string(data) != "keep me" {
			t.Errorf("after %s the file outside was touched: %q %v", after, data, err)
		}
		if entries, _ := os.ReadDir(outside); len(entries) != 1 {
			t.Errorf("after %s the folder outside holds %d entries", after, len(entries))
		}
	}
	for _, name := range []string{"..", ".", "a/b", outside, "x\u0000y", "x\u001b[2Jy", "x\u202ey", strings.Repeat("a", 300)} {
		args, _ := json.Marshal(map[string]string{"action": "save", "name": name, "description": "x", "body": "y"})
		if _, err := call(t, b, string(args)); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
			t.Errorf("save %q: %v, want EINVALID", name, err)
		}
		untouched("save " + name)
	}
	os.MkdirAll(dir, 0o700)
	os.Symlink(outside, filepath.Join(dir, "linked"))
	if _, err := call(t, b, `{"action":"save","name":"linked","description":"x","body":"y"}`); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "link") {
		t.Errorf("save into a linked folder: %v, want EINVALID naming the link", err)
	}
	untouched("save linked")
	os.MkdirAll(filepath.Join(dir, "inner"), 0o700)
	os.Symlink(keep, filepath.Join(dir, "inner", "SKILL.md"))
	call(t, b, `{"action":"save","name":"inner","description":"x","body":"y"}`)
	untouched("save inner")

	// An agent whose name is not plain has no folder to save into.
	bad := New(namedir.New(filepath.Dir(filepath.Dir(dir)), "agent", nil).Sub("../..", func(p string) namedir.Dir { return skills.Folder(filepath.Join(p, "skills")) }), nil)
	if _, err := call(t, bad, `{"action":"save","name":"ok","description":"x","body":"y"}`); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("save for agent \"../..\": %v", err)
	}
}
