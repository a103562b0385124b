package agents

import (
	"context"
	"github.com/jarvisbot/jarvisbot/catalog"
	"maps"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

// Focuser chooses an agent's focus from its name and description (C6);
// *catalog.View is one.
type Focuser interface {
	Focus(name, description string) []string
}

// Spec is the owner's description of an agent as typed: Allow and Block
// are comma-separated capability ids or patterns ("mcp:github/*"), "-"
// clears a list, and "" (like an empty Description) keeps what an edited
// agent has.
type Spec struct {
	Description string
	Allow       string
	Block       string
	// Provider chooses the agent's model (A3, M5): a provider name such as
	// claude-code or codex; "" keeps what the agent has, "-" clears it.
	Provider string
}

// Providers are the provider names an agent may be given.
var Providers = []string{"anthropic", "openai", "claude-code", "codex"}

// provider checks a provider name of a Spec.
func provider(p string) (string, error) {
	switch {
	case p == "" || p == "-":
		return "", nil
	case slices.Contains(Providers, p):
		return p, nil
	}
	return "", jarvisbot.Errorf(jarvisbot.EINVALID, "unknown provider %q: use %s", p, strings.Join(Providers, ", "))
}

// IDs splits a comma-separated list of capability ids; "-" is the empty
// list, which clears.
func IDs(s string) []string {
	if s == "-" {
		return []string{}
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// permitted keeps the focus entries an agent's allow-list lets it have: a
// tool it may not use is no focus of its. Empty when none is left, as an
// agent whose description named nothing.
func permitted(focus, allow []string) []string {
	if len(allow) == 0 || len(focus) == 0 {
		return focus
	}
	var out []string
	for _, f := range focus {
		id, server := f, ""
		if rest, ok := strings.CutPrefix(f, "mcp:"); ok {
			server, _, _ = strings.Cut(rest, "/")
		} else if rest, ok := strings.CutPrefix(f, "plugin:"); ok {
			server = rest
		}
		if catalog.Covers(allow, id, server) {
			out = append(out, f)
		}
	}
	return out
}

// Add creates the agent name (A1) with its focus chosen from its
// description (C6).
func Add(ctx context.Context, db store.Agents, f Focuser, name string, s Spec) (store.Agent, error) {
	if strings.TrimSpace(s.Description) == "" {
		return store.Agent{}, jarvisbot.Errorf(jarvisbot.EINVALID, "describe the agent: jarvisbot agents add %s --describe \"what it is for\"", name)
	}
	prov, err := provider(s.Provider)
	if err != nil {
		return store.Agent{}, err
	}
	ag := store.Agent{Name: name, Description: s.Description, Allow: IDs(s.Allow), Block: IDs(s.Block), Provider: prov}
	ag.Focus = permitted(f.Focus(name, s.Description), ag.Allow)
	if err := db.CreateAgent(ctx, ag); err != nil {
		return store.Agent{}, err
	}
	return ag, nil
}

// Edit changes what s sets of the agent name; a new description chooses
// the focus anew (C6).
func Edit(ctx context.Context, db store.Agents, f Focuser, name string, s Spec) (store.Agent, error) {
	ag, err := db.Agent(ctx, name)
	if err != nil {
		return store.Agent{}, err
	}
	if s.Description != "" {
		ag.Description, ag.Focus = s.Description, f.Focus(ag.Name, s.Description)
	}
	if s.Allow != "" {
		ag.Allow = IDs(s.Allow)
	}
	ag.Focus = permitted(ag.Focus, ag.Allow)
	if s.Block != "" {
		ag.Block = IDs(s.Block)
	}
	if s.Provider != "" {
		if ag.Provider, err = provider(s.Provider); err != nil {
			return store.Agent{}, err
		}
	}
	if err := db.UpdateAgent(ctx, ag); err != nil {
		return store.Agent{}, err
	}
	return ag, nil
}

// Remove deletes the agent name; the default agent stays, for every
// message that names no agent.
func Remove(ctx context.Context, db store.Agents, name string) error {
	if name == store.DefaultAgent {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "the default agent cannot be removed; edit it instead")
	}
	return db.DeleteAgent(ctx, name)
}

// DefaultDescription describes the default agent when the config does not.
const DefaultDescription = "Your general assistant."

// Seeder is what seeding agents needs of the store.
type Seeder interface {
	Agent(ctx context.Context, name string) (store.Agent, error)
	EnsureAgent(ctx context.Context, a store.Agent) (created bool, err error)
}

// Seed makes sure the default agent and every agent the config names
// exist (A1), the default first, then by name. Agents already stored keep
// the owner's later edits. focus is called only when an agent is missing,
// for the catalog that chooses its focus (C6); from names the config in
// errors. The configured agents are records by name whose Focus Seed
// fills; agents takes no config file's schema.
func Seed(ctx context.Context, db Seeder, configured map[string]store.Agent, from string, focus func() (Focuser, error)) error {
	def, ok := configured[store.DefaultAgent]
	if !ok || def.Description == "" {
		def.Description = DefaultDescription
	}
	var f Focuser
	seed := func(name string, ag store.Agent) error {
		if _, err := db.Agent(ctx, name); err == nil {
			return nil
		}
		if f == nil {
			var err error
			if f, err = focus(); err != nil {
				return err
			}
		}
		_, err := db.EnsureAgent(ctx, store.Agent{Name: name, Description: ag.Description, Allow: ag.Allow, Block: ag.Block, Focus: permitted(f.Focus(name, ag.Description), ag.Allow)})
		if err != nil {
			return jarvisbot.Errorf(jarvisbot.ErrorCode(err), "seeding agent %q from %s: %w", name, from, err)
		}
		return nil
	}
	if err := seed(store.DefaultAgent, def); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(configured)) {
		if name == store.DefaultAgent {
			continue
		}
		if err := seed(name, configured[name]); err != nil {
			return err
		}
	}
	return nil
}
