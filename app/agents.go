package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/cliagent"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/store"
)

// The agent use cases (A1): what `jarvisbot agents` and the dashboard's
// Agents tab both do. An agent's focus (C6) is chosen from its name and
// description when it is added or described anew, on the catalog as it is
// then: the running service's, or the one a command assembles.

// focuser is the catalog that chooses focus now.
func (in *Installation) focuser() (agents.Focuser, error) {
	if in.Live != nil {
		return FocusOn(in.Live.Catalog.View(), in.Config.DataDir), nil
	}
	c, err := BuildCatalog(in.Config, "")
	if err != nil {
		return nil, err
	}
	return FocusOn(c.View(), in.Config.DataDir), nil
}

// ListAgents lists the agents by name.
func (in *Installation) ListAgents(ctx context.Context) ([]store.Agent, error) {
	return in.DB.Agents(ctx)
}

// ShowAgent is the agent name as the owner set it up.
func (in *Installation) ShowAgent(ctx context.Context, name string) (store.Agent, error) {
	return in.DB.Agent(ctx, name)
}

// AgentCalls are the agent's latest calls on the activity board, newest
// first, at most limit.
func (in *Installation) AgentCalls(ctx context.Context, name string, limit int) ([]store.ActivityEntry, error) {
	return in.DB.ActivityBoard(ctx, store.ActivityFilter{Agent: name}, limit)
}

// AgentSaved is an agent as an add or an edit left it.
type AgentSaved struct {
	Agent store.Agent
	Added bool
	// Missing are the store plugins in its focus not connected yet.
	Missing []FocusPlugin
}

// AddAgent adds the agent name (A1), its focus chosen from its
// description (C6).
func (in *Installation) AddAgent(ctx context.Context, name string, spec agents.Spec) (AgentSaved, error) {
	f, err := in.focuser()
	if err != nil {
		return AgentSaved{}, err
	}
	ag, err := agents.Add(ctx, in.DB, f, name, spec)
	if err != nil {
		return AgentSaved{}, err
	}
	missing, err := in.FocusPlugins(ctx, ag)
	return AgentSaved{Agent: ag, Added: true, Missing: missing}, err
}

// EditAgent changes what spec sets of the agent name; a description
// given chooses its focus anew (C6).
func (in *Installation) EditAgent(ctx context.Context, name string, spec agents.Spec) (AgentSaved, error) {
	var f agents.Focuser
	if spec.Description != "" {
		var err error
		if f, err = in.focuser(); err != nil {
			return AgentSaved{}, err
		}
	}
	ag, err := agents.Edit(ctx, in.DB, f, name, spec)
	if err != nil {
		return AgentSaved{}, err
	}
	missing, err := in.FocusPlugins(ctx, ag)
	return AgentSaved{Agent: ag, Missing: missing}, err
}

// Note is what was saved: the agent, as `agents show` begins.
func (r AgentSaved) Note() string {
	text := DescribeAgent(r.Agent)
	if r.Added {
		text = "Added agent:\n" + text
	}
	for _, p := range r.Missing {
		text += "  " + p.Line() + "\n"
	}
	return strings.TrimSpace(text)
}

// DescribeAgent is an agent as the owner set it up, one line for its
// description and one for each setting, its focus first.
func DescribeAgent(ag store.Agent) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", ag.Name, visible.Line(ag.Description))
	focus := "none (no capability matched the description; name a service to give it one)"
	if len(ag.Focus) > 0 {
		focus = strings.Join(ag.Focus, ", ")
	}
	fmt.Fprintf(&b, "  focus: %s\n", focus)
	if len(ag.Allow) > 0 {
		fmt.Fprintf(&b, "  allow: %s\n", strings.Join(ag.Allow, ", "))
	}
	if len(ag.Block) > 0 {
		fmt.Fprintf(&b, "  block: %s\n", strings.Join(ag.Block, ", "))
	}
	if ag.Provider != "" {
		fmt.Fprintf(&b, "  provider: %s\n", ag.Provider)
	}
	return b.String()
}

// AgentRemoved is an agent removed.
type AgentRemoved struct{ Name string }

// RemoveAgent removes the agent name; the default agent stays.
func (in *Installation) RemoveAgent(ctx context.Context, name string) (AgentRemoved, error) {
	if err := agents.Remove(ctx, in.DB, name); err != nil {
		return AgentRemoved{}, err
	}
	return AgentRemoved{Name: name}, nil
}

func (r AgentRemoved) Note() string { return fmt.Sprintf("Removed agent %s.", r.Name) }

// AgentModel is the model an agent runs on (A3, M5).
type AgentModel struct {
	// CLI is the coding CLI it runs on (claude-code, codex), or "" for a
	// provider's API.
	CLI string
	// Version is the CLI's own answer to --version, when it gave one.
	Version string
	// Provider and Model name the API model when CLI is "".
	Provider, Model string
	// Fallbacks are the chain's other links, in order, "provider model".
	Fallbacks []string
	// Err says why there is no model yet, or why the CLI is not usable.
	Err error
}

// ModelOf says what model ag runs on; for a coding CLI, which one it
// found and its version, or why it is not usable.
func (in *Installation) ModelOf(ctx context.Context, ag store.Agent) AgentModel {
	ch, err := in.Env.ChooseFor(ctx, in.Config, ag)
	switch {
	case err != nil:
		return AgentModel{Err: err}
	case ch.CLI != "":
		m := AgentModel{CLI: ch.CLI}
		cli, err := cliagent.New(cliagent.Options{Kind: ch.CLI, Command: ch.Command, Getenv: in.Env.Getenv, Environ: in.Env.Environ, MCP: SessionServer})
		if err == nil {
			m.Version, err = cli.Version(ctx)
		}
		m.Err = err
		return m
	}
	m := AgentModel{Provider: ch.Config.Provider, Model: ch.Config.Model}
	for _, l := range ch.Fallbacks {
		m.Fallbacks = append(m.Fallbacks, l.Config.Provider+" "+l.Config.Model)
	}
	return m
}
