package app

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/internal/secretref"
	"github.com/jarvisbot/jarvisbot/store"
)

// ExportFormat names the export's format.
const ExportFormat = "jarvisbot-export/1"

// SetupStore is what export reads and import writes of the store.
type SetupStore interface {
	store.Agents
	store.SkillSwitches
	UpdateScheduleState(ctx context.Context, skill string, change func(*store.ScheduleState)) (store.ScheduleState, error)
	MCPServers(ctx context.Context) ([]store.MCPServer, error)
}

// Setup is an installation's setup as export reads it and import writes
// it (M4): its agents, skill switches, MCP servers and paused schedules.
// Skills and Schedule are the running service's parts that say which
// skills and schedules there are; a nil one is not known here, and
// export leaves it out and import skips it.
type Setup struct {
	Store SetupStore
	// Focus chooses an imported agent's focus from its description.
	Focus    agents.Focuser
	Skills   func(ctx context.Context) ([]SkillSwitch, error)
	Schedule func(ctx context.Context) ([]ScheduleSwitch, error)
}

// SkillSwitch is a skill and whether it is on, as export and import see it.
type SkillSwitch struct {
	Name    string
	Enabled bool
	// Off says why it is off: skills.WhySwitchedOff (the owner's switch)
	// or skills.WhyNotInstalled; "" when it is on.
	Off string
}

// ScheduleSwitch is a scheduled skill and whether the owner paused it.
type ScheduleSwitch struct {
	Skill, Schedule string
	Paused          bool
}

// Export is what `export` gives an app: the setup, never secrets, keys or
// history. An MCP server's settings keep their ${NAME} references (the
// names of keyring entries, not their values); a value that is not one
// is withheld. It is a documented format: its JSON is what apps keep.
type Export struct {
	Format     string           `json:"format"`
	Agents     []ExportAgent    `json:"agents"`
	Skills     []ExportSkill    `json:"skills"`
	MCPServers []ExportServer   `json:"mcp_servers"`
	Schedules  []ExportSchedule `json:"schedules"`
	// Withheld says which settings read "[withheld]" instead of their
	// value: "mcp server pg: argument 2 (password)".
	Withheld []string `json:"withheld,omitempty"`
}

type ExportAgent struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Allow       []string `json:"allow,omitempty"`
	Block       []string `json:"block,omitempty"`
}

type ExportSkill struct {
	Name    string `json:"name"`
	Enabled bool   `json:"enabled"`
	// Off says why it is off there: "switched off" imports as the
	// owner's switch; "plugin not installed" is no switch at all.
	Off string `json:"off,omitempty"`
}

type ExportServer struct {
	Name      string            `json:"name"`
	Transport string            `json:"transport"`
	Command   string            `json:"command,omitempty"`
	Args      []string          `json:"args,omitempty"`
	URL       string            `json:"url,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	Headers   map[string]string `json:"headers,omitempty"`
	Enabled   bool              `json:"enabled"`
	Plugin    string            `json:"plugin,omitempty"`
}

type ExportSchedule struct {
	Skill    string `json:"skill"`
	Schedule string `json:"schedule"`
	Paused   bool   `json:"paused"`
}

// withheld stands for a setting whose value is not a reference, or for the
// literal credential in an argument or a URL.
const withheld = "[withheld]"

// references keeps the values that are only ${NAME} references, after an
// optional auth scheme ("Bearer ${TOKEN}"); any other is withheld, and
// listed in withheld as what KEY ("env MODE").
func references(m map[string]string, what string, withheldList *[]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		rest := v
		if scheme, after, ok := strings.Cut(v, " "); ok && !strings.Contains(scheme, "${") {
			rest = after
		}
		bare, _ := secretref.Expand(rest, func(string) (string, bool) { return "", true })
		if len(secretref.Names(rest)) > 0 && strings.TrimSpace(bare) == "" {
			out[k] = v
		} else {
			out[k] = withheld
			*withheldList = append(*withheldList, what+" "+k)
		}
	}
	return out
}

// Export is the setup as an app may take it elsewhere.
func (s Setup) Export(ctx context.Context) (Export, error) {
	ex := Export{Format: ExportFormat, Agents: []ExportAgent{}, Skills: []ExportSkill{}, MCPServers: []ExportServer{}, Schedules: []ExportSchedule{}}
	list, err := s.Store.Agents(ctx)
	if err != nil {
		return ex, err
	}
	for _, a := range list {
		ex.Agents = append(ex.Agents, ExportAgent{Name: a.Name, Description: a.Description, Allow: a.Allow, Block: a.Block})
	}
	if s.Skills != nil {
		sk, err := s.Skills(ctx)
		if err != nil {
			return ex, err
		}
		for _, k := range sk {
			ex.Skills = append(ex.Skills, ExportSkill{Name: k.Name, Enabled: k.Enabled, Off: k.Off})
		}
	}
	servers, err := s.Store.MCPServers(ctx)
	if err != nil {
		return ex, err
	}
	for _, m := range servers {
		// A literal credential an older jarvisbot stored in an argument
		// or the URL is withheld like any other literal.
		shown, held := mcphost.Withheld(m, withheld)
		env := references(m.Env, "env", &held)
		headers := references(m.Headers, "header", &held)
		for _, w := range held {
			ex.Withheld = append(ex.Withheld, fmt.Sprintf("mcp server %s: %s", m.Name, w))
		}
		ex.MCPServers = append(ex.MCPServers, ExportServer{Name: m.Name, Transport: m.Transport, Command: m.Command, Args: shown.Args,
			URL: shown.URL, Env: env, Headers: headers, Enabled: m.Enabled, Plugin: m.Plugin})
	}
	if s.Schedule != nil {
		sch, err := s.Schedule(ctx)
		if err != nil {
			return ex, err
		}
		for _, e := range sch {
			ex.Schedules = append(ex.Schedules, ExportSchedule{Skill: e.Skill, Schedule: e.Schedule, Paused: e.Paused})
		}
	}
	return ex, nil
}
