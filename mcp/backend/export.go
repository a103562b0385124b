package backend

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/internal/secretref"
)

// ExportFormat names the export's format.
const ExportFormat = "jarvisbot-export/1"

// export is what `export` gives an app: the setup, never secrets, keys or
// history. An MCP server's settings keep their ${NAME} references (the
// names of keyring entries, not their values); a value that is not one
// is withheld.
type export struct {
	Format     string          `json:"format"`
	Agents     []exportAgent   `json:"agents"`
	Skills     []exportSkill   `json:"skills"`
	MCPServers []exportServer  `json:"mcp_servers"`
	Schedules  []exportedSched `json:"schedules"`
	// Withheld says which settings read "[withheld]" instead of their
	// value: "mcp server pg: argument 2 (password)".
	Withheld []string `json:"withheld,omitempty"`
}

type exportAgent struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Allow       []string `json:"allow,omitempty"`
	Block       []string `json:"block,omitempty"`
}

type exportSkill struct {
	Name    string `json:"name"`
	Enabled bool   `json:"enabled"`
	// Off says why it is off there: "switched off" imports as the
	// owner's switch; "plugin not installed" is no switch at all.
	Off string `json:"off,omitempty"`
}

type exportServer struct {
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

type exportedSched struct {
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

// Export writes the setup as JSON.
func (s *Service) Export(ctx context.Context) (json.RawMessage, error) {
	ex := export{Format: ExportFormat, Agents: []exportAgent{}, Skills: []exportSkill{}, MCPServers: []exportServer{}, Schedules: []exportedSched{}}
	list, err := s.Store.Agents(ctx)
	if err != nil {
		return nil, err
	}
	for _, a := range list {
		ex.Agents = append(ex.Agents, exportAgent{Name: a.Name, Description: a.Description, Allow: a.Allow, Block: a.Block})
	}
	if s.SkillList != nil {
		sk, err := s.SkillList(ctx)
		if err != nil {
			return nil, err
		}
		for _, k := range sk {
			ex.Skills = append(ex.Skills, exportSkill{Name: k.Name, Enabled: k.Enabled, Off: k.Off})
		}
	}
	servers, err := s.Store.MCPServers(ctx)
	if err != nil {
		return nil, err
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
		ex.MCPServers = append(ex.MCPServers, exportServer{Name: m.Name, Transport: m.Transport, Command: m.Command, Args: shown.Args,
			URL: shown.URL, Env: env, Headers: headers, Enabled: m.Enabled, Plugin: m.Plugin})
	}
	if s.ScheduleList != nil {
		sch, err := s.ScheduleList(ctx)
		if err != nil {
			return nil, err
		}
		for _, e := range sch {
			ex.Schedules = append(ex.Schedules, exportedSched{Skill: e.Skill, Schedule: e.Schedule, Paused: e.Paused})
		}
	}
	return json.Marshal(ex)
}
