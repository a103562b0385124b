package desk

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/store"
)

// TestSlashCommandsAnswerFromFactsCH1: each slash command answers from
// what the running service reports, says what to do when there is
// nothing, and says so when it cannot read it.
func TestSlashCommandsAnswerFromFactsCH1(t *testing.T) {
	broken := errors.New("the store is locked")
	full := factsOfAService(t)
	empty := Facts{
		Schedule: func(context.Context) string { return "" },
		Plugins:  func(context.Context) ([]store.InstalledPlugin, error) { return nil, nil },
		Servers:  func() []ServerState { return nil },
		Activity: func(context.Context, int) ([]store.Activity, error) { return nil, nil },
	}
	failing := Facts{
		Skills:   func(context.Context) ([]SkillState, error) { return nil, broken },
		Plugins:  func(context.Context) ([]store.InstalledPlugin, error) { return nil, broken },
		Agents:   func(context.Context) ([]store.Agent, error) { return nil, broken },
		Activity: func(context.Context, int) ([]store.Activity, error) { return nil, broken },
	}
	for _, tc := range []struct {
		name, cmd string
		facts     Facts
		want      []string
		not       []string
	}{
		{"skills, with clock marks; manuals of plugins not connected left out", "skills", full,
			[]string{"humanizer — on\n", "morning-brief — on ⏰ 0 7 * * *", "notes — off (switched off)"}, []string{"gmail"}},
		{"plugins, with how to renew one that needs attention", "plugins", full,
			[]string{"github: connected\n", "notion: needs-attention — renew with: jarvisbot plugins signin notion"}, nil},
		{"no plugins", "plugins", empty, []string{"No plugins installed. Install one with: jarvisbot plugins install NAME"}, nil},
		{"MCP servers, and why one is down", "mcp", full, []string{"github: up, 40 tools\n", "slow: down, 0 tools (exit status 1)"}, nil},
		{"no MCP servers", "mcp", empty, []string{"No MCP servers. Add one with: jarvisbot mcp add NAME -- COMMAND"}, nil},
		{"agents", "agents", full, []string{"default — the assistant"}, nil},
		{"activity", "activity", full, []string{"09:05 default cli:gh: ok"}, nil},
		{"no activity", "activity", empty, []string{"Nothing yet."}, nil},
		{"schedule", "schedule", full, []string{"morning-brief  0 7 * * *"}, nil},
		{"no scheduler", "schedule", empty, []string{"The scheduler is not running."}, nil},
		{"skills unreadable", "skills", failing, []string{"Skills cannot be read: the store is locked"}, nil},
		{"plugins unreadable", "plugins", failing, []string{"the store is locked"}, nil},
		{"agents unreadable", "agents", failing, []string{"the store is locked"}, nil},
		{"activity unreadable", "activity", failing, []string{"the store is locked"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := tc.facts.Commands()[tc.cmd]
			if !ok {
				t.Fatalf("/%s is not answered", tc.cmd)
			}
			got := f(context.Background(), "test:1")
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("/%s = %q, want %q in it", tc.cmd, got, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("/%s = %q, want no %q in it", tc.cmd, got, n)
				}
			}
		})
	}
	if _, ok := (Facts{}).Commands()["skills"]; ok {
		t.Error("/skills is answered with nothing to read it from")
	}
}

// factsOfAService are the facts of a service with skills (one scheduled,
// one a manual of a plugin not connected), plugins, MCP servers, an
// agent, activity and a schedule.
func factsOfAService(t *testing.T) Facts {
	return Facts{
		Skills: func(context.Context) ([]SkillState, error) {
			return []SkillState{
				{Name: "humanizer", State: "on", On: true},
				{Name: "morning-brief", State: "on", Schedule: "0 7 * * *", On: true},
				{Name: "gmail", State: "off (plugin not installed)", Manual: true},
				{Name: "notes", State: "off (switched off)"},
			}, nil
		},
		Plugins: func(context.Context) ([]store.InstalledPlugin, error) {
			return []store.InstalledPlugin{{Name: "github", State: store.PluginConnected}, {Name: "notion", State: store.PluginNeedsAttention}}, nil
		},
		Servers: func() []ServerState {
			return []ServerState{{Name: "github", State: "up", Tools: 40}, {Name: "slow", State: "down", Err: errors.New("exit status 1")}}
		},
		Agents: func(context.Context) ([]store.Agent, error) {
			return []store.Agent{{Name: "default", Description: "the assistant"}}, nil
		},
		Activity: func(_ context.Context, limit int) ([]store.Activity, error) {
			if limit != activityShown {
				t.Errorf("activity asked for %d entries", limit)
			}
			return []store.Activity{{At: time.Date(2026, 12, 3, 9, 5, 0, 0, time.Local), Agent: "default", Tool: "cli:gh", Outcome: "ok"}}, nil
		},
		Schedule: func(context.Context) string { return "morning-brief  0 7 * * *" },
	}
}
