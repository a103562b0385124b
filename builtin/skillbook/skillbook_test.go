package skillbook

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/skills"
)

// newBook returns a book whose enabled skills are a shipped one plus
// whatever the agent saved, read back from disk as the service does.
func newBook(t *testing.T) (*Book, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "agents", "default", "skills")
	shipped := &skills.Skill{Name: "humanizer", Description: "Rewrite text so it sounds human.", Body: "Prefer short sentences.\n"}
	return New(dir, func(context.Context) ([]*skills.Skill, error) {
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
