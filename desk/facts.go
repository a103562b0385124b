package desk

import (
	"context"
	"fmt"
	"strings"

	"github.com/jarvisbot/jarvisbot/store"
)

// SkillState is one skill as /skills shows it.
type SkillState struct {
	Name     string
	State    string // "on", or "off (why)"
	Schedule string // its cron schedule, if it has one
	// Manual marks a store plugin's manual: one whose plugin is not
	// connected is left out, since the owner cannot switch it on here.
	Manual bool
	On     bool
}

// ServerState is one MCP server as /mcp shows it.
type ServerState struct {
	Name  string
	State string // "up" when it answers
	Tools int
	Err   error // why it is not up
}

// Facts are what the slash commands read from the running service (each
// read when its command is sent). A nil one leaves its command to the
// agent as text. Schedule returns "" while no scheduler runs (chat), and
// /schedule says so.
type Facts struct {
	Skills   func(ctx context.Context) ([]SkillState, error)
	Plugins  func(ctx context.Context) ([]store.InstalledPlugin, error)
	Servers  func() []ServerState
	Agents   func(ctx context.Context) ([]store.Agent, error)
	Activity func(ctx context.Context, limit int) ([]store.Activity, error)
	Schedule func(ctx context.Context) string
}

// Commands are the slash commands the facts answer, for Options.Commands.
func (f Facts) Commands() map[string]func(ctx context.Context, chat string) string {
	out := map[string]func(context.Context, string) string{
		"schedule": func(ctx context.Context, _ string) string {
			if f.Schedule != nil {
				if text := f.Schedule(ctx); text != "" {
					return text
				}
			}
			return "The scheduler is not running."
		},
	}
	add := func(name string, ok bool, answer func(context.Context) string) {
		if ok {
			out[name] = func(ctx context.Context, _ string) string { return answer(ctx) }
		}
	}
	add("skills", f.Skills != nil, f.skills)
	add("plugins", f.Plugins != nil, f.plugins)
	add("mcp", f.Servers != nil, func(context.Context) string { return servers(f.Servers()) })
	add("agents", f.Agents != nil, f.agents)
	add("activity", f.Activity != nil, f.activity)
	return out
}

func (f Facts) skills(ctx context.Context) string {
	all, err := f.Skills(ctx)
	if err != nil {
		return "Skills cannot be read: " + err.Error()
	}
	var b strings.Builder
	for _, s := range all {
		if s.Manual && !s.On {
			continue
		}
		mark := ""
		if s.Schedule != "" {
			mark = " ⏰ " + s.Schedule
		}
		fmt.Fprintf(&b, "%s — %s%s\n", s.Name, s.State, mark)
	}
	return b.String()
}

func (f Facts) plugins(ctx context.Context) string {
	list, err := f.Plugins(ctx)
	if err != nil {
		return err.Error()
	}
	if len(list) == 0 {
		return "No plugins installed. Install one with: jarvisbot plugins install NAME"
	}
	var b strings.Builder
	for _, p := range list {
		note := ""
		if p.State == store.PluginNeedsAttention {
			note = " — renew with: jarvisbot plugins signin " + p.Name
		}
		fmt.Fprintf(&b, "%s: %s%s\n", p.Name, p.State, note)
	}
	return b.String()
}

func servers(st []ServerState) string {
	if len(st) == 0 {
		return "No MCP servers. Add one with: jarvisbot mcp add NAME -- COMMAND"
	}
	var b strings.Builder
	for _, s := range st {
		state := s.State
		if state == "idle" {
			state = "idle, starts when a request needs it"
		}
		fmt.Fprintf(&b, "%s: %s, %d tools", s.Name, state, s.Tools)
		if s.Err != nil && s.State != "up" {
			fmt.Fprintf(&b, " (%v)", s.Err)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func (f Facts) agents(ctx context.Context) string {
	list, err := f.Agents(ctx)
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	for _, ag := range list {
		fmt.Fprintf(&b, "%s — %s\n", ag.Name, ag.Description)
	}
	return b.String()
}

// activityShown is how many of the latest calls /activity shows.
const activityShown = 10

func (f Facts) activity(ctx context.Context) string {
	list, err := f.Activity(ctx, activityShown)
	if err != nil {
		return err.Error()
	}
	if len(list) == 0 {
		return "Nothing yet."
	}
	var b strings.Builder
	for _, e := range list {
		fmt.Fprintf(&b, "%s %s %s: %s\n", e.At.Local().Format("15:04"), e.Agent, e.Tool, e.Outcome)
	}
	return b.String()
}
