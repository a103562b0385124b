package skillbook

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
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

// TestAskForServiceC8: the model asks for a service's tools by name, or
// reads a plugin's manual; either call names the service in its output for
// the runtime, and asking is safe. Reading a skill of no plugin, or asking
// with no name, asks for nothing.
func TestAskForServiceC8(t *testing.T) {
	manual := &skills.Skill{Name: "google-calendar", Plugin: "google-calendar", Description: "Use when the owner asks about their schedule.", Body: "Use the calendar tools."}
	general := &skills.Skill{Name: "humanizer", Description: "Rewrite text so it sounds human.", Body: "Prefer short sentences."}
	books := Books(func(string) *Book {
		return New(skills.Folder(t.TempDir()), func(context.Context) ([]*skills.Skill, error) {
			return []*skills.Skill{general, manual}, nil
		})
	})
	cp := Capability()
	for _, tt := range []struct {
		args string
		want []string
		text string
	}{
		{`{"action":"tools","service":"google-maps"}`, []string{"google-maps"}, "google-maps"},
		{`{"action":"tools","name":"Google Maps"}`, []string{"Google Maps"}, "Google Maps"},
		{`{"action":"use","name":"google-calendar"}`, []string{"google-calendar"}, "Use the calendar tools."},
		{`{"action":"use","name":"humanizer"}`, nil, "Prefer short sentences."},
	} {
		out, err := books.Run(context.Background(), catalog.Call{Cap: &cp, Agent: "default", Args: json.RawMessage(tt.args)})
		if err != nil || !slices.Equal(out.Services, tt.want) || !strings.Contains(out.Text, tt.text) {
			t.Errorf("%s: %+v %v; want services %v and %q", tt.args, out, err, tt.want, tt.text)
		}
	}
	out, err := books.Run(context.Background(), catalog.Call{Cap: &cp, Agent: "default", Args: json.RawMessage(`{"action":"tools"}`)})
	if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || len(out.Services) != 0 {
		t.Errorf("tools without a name: %+v %v", out, err)
	}
	if cp.ActionTiers["tools"] != catalog.TierSafe {
		t.Errorf("asking for a service is %q, want safe: it grants nothing", cp.ActionTiers["tools"])
	}
}
