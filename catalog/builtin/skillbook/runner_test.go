package skillbook

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/skills"
)

// TestBooksServeTheCallingAgentS7: the runner of builtin:skills serves each
// call with the book of the agent that made it, so a skill an agent saves
// lands in its own folder and no other.
func TestBooksServeTheCallingAgentS7(t *testing.T) {
	root := t.TempDir()
	dir := func(agent string) string { return filepath.Join(root, "agents", agent, "skills") }
	books := Books(func(agent string) *Book {
		return New(skills.Folder(dir(agent)), func(context.Context) ([]*skills.Skill, error) { return nil, nil })
	})
	cp := Capability()
	save := catalog.Call{Cap: &cp, Agent: "writer", Args: json.RawMessage(`{"action":"save","name":"weekly-report","description":"Write the weekly report.","body":"1. Summarise the week."}`)}
	if out, err := books.Run(context.Background(), save); err != nil || out.IsError || !strings.Contains(out.Text, "saved skill weekly-report") {
		t.Fatalf("save: %+v %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(dir("writer"), "weekly-report", "SKILL.md")); err != nil {
		t.Errorf("the skill is not in the writer's folder: %v", err)
	}
	if _, err := os.Stat(dir("reader")); !os.IsNotExist(err) {
		t.Errorf("another agent's folder was touched: %v", err)
	}
}
