package catalog

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jarvisbot/jarvisbot"
)

// Kind is the source a capability comes from; it is the prefix of its id.
type Kind string

// The kinds of capability (C1).
const (
	KindPlugin  Kind = "plugin"
	KindMCP     Kind = "mcp"
	KindSkill   Kind = "skill"
	KindCLI     Kind = "cli"
	KindBuiltin Kind = "builtin"
)

// Tier is a capability's risk tier (C2).
type Tier string

// The tiers, from least to most guarded. The default is TierMonitor.
const (
	TierSafe    Tier = "safe"    // runs
	TierMonitor Tier = "monitor" // runs and is recorded on the activity board
	TierAsk     Tier = "ask"     // waits for the owner's approval
)

// ParseTier reads a tier name as written in config and manifests.
func ParseTier(s string) (Tier, error) {
	switch t := Tier(strings.ToLower(strings.TrimSpace(s))); t {
	case TierSafe, TierMonitor, TierAsk:
		return t, nil
	}
	return "", jarvisbot.Errorf(jarvisbot.EINVALID, "unknown tier %q: use safe, monitor or ask", s)
}

// rank orders tiers so that "raise only" rules can compare them.
func (t Tier) rank() int {
	switch t {
	case TierSafe:
		return 0
	case TierAsk:
		return 2
	}
	return 1
}

// Max returns the more guarded of two tiers.
func (t Tier) Max(u Tier) Tier {
	if u.rank() > t.rank() {
		return u
	}
	if t == "" {
		return TierMonitor
	}
	return t
}

// Capability is one entry of the catalog: anything an agent can be offered.
type Capability struct {
	// ID is "<kind>:<name>", for MCP tools "mcp:<server>/<tool>".
	ID          string
	Kind        Kind
	Source      string // where it came from: plugin id, MCP server, skill folder, CLI path, "builtin"
	Name        string // the name the model sees
	Description string
	// InputSchema is the JSON Schema of the arguments, kept as the bytes the
	// source sent so that the model receives them unchanged.
	InputSchema json.RawMessage
	// Tier is the capability's tier. ActionTiers, when set, refines it per
	// value of the "action" argument (the wiki reads safely, writes with
	// monitoring); Tier is then the most guarded of them.
	Tier        Tier
	ActionTiers map[string]Tier
	// Connected is false while the capability cannot work (server down,
	// sign-in expired); step 2 of C3 removes it then.
	Connected bool
	// Server is the MCP server id for KindMCP, the plugin for a built-in
	// plugin's native tool (KindPlugin, plugin:PLUGIN/TOOL), else "".
	Server string
	// Tool is the tool's name on its server where Server is set, else "".
	Tool string

	title       string       // the MCP tool's display title, kept for export and the gate
	annotations *Annotations // the MCP tool's hints, kept for export
	// enums are the word-shaped values of its arguments' enums
	// (enumValues), read once when the tool list arrives rather than at
	// every gate build, where parsing the schemas was a third of what a
	// build allocated; enumsRead says they were.
	enums     []string
	enumsRead bool
	// shelved is the size of the input schema a stored list keeps out of
	// memory (shelvedCaps): InputSchema is nil until View.WithSchemas
	// reads it again.
	shelved int
}

// SchemaBytes is the size of what offering the capability costs in the
// request: its name, description and schema.
func (c *Capability) SchemaBytes() int {
	return len(c.Name) + len(c.Description) + len(c.InputSchema) + c.shelved
}

// MCPID returns the capability id of tool on server.
func MCPID(server, tool string) string { return "mcp:" + server + "/" + tool }

// ParseID splits a capability id into kind and name and checks the kind.
func ParseID(id string) (Kind, string, error) {
	kind, name, ok := strings.Cut(id, ":")
	if !ok || name == "" {
		return "", "", jarvisbot.Errorf(jarvisbot.EINVALID, "capability id %q: want KIND:NAME such as builtin:wiki or mcp:github/create_pull_request", id)
	}
	switch k := Kind(kind); k {
	case KindPlugin, KindMCP, KindSkill, KindCLI, KindBuiltin:
		if k == KindMCP {
			if s, t, ok := strings.Cut(name, "/"); !ok || s == "" || t == "" {
				return "", "", jarvisbot.Errorf(jarvisbot.EINVALID, "capability id %q: MCP ids are mcp:SERVER/TOOL", id)
			}
		}
		return k, name, nil
	}
	return "", "", jarvisbot.Errorf(jarvisbot.EINVALID, "capability id %q: unknown kind %q (plugin, mcp, skill, cli, builtin)", id, kind)
}

func (c *Capability) String() string { return fmt.Sprintf("%s (%s)", c.ID, c.Tier) }
