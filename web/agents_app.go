package web

import (
	"context"
	"time"

	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/store"
)

// AgentsTab is the Agents tab over an installation (the running
// service's): app's agent use cases, the same `jarvisbot agents` runs,
// with the live catalog choosing focus (C6).
func AgentsTab(in *app.Installation) Agents { return agentsTab{in} }

type agentsTab struct{ in *app.Installation }

// agentRecent is how many of an agent's calls its page shows.
const agentRecent = 10

func agentFrom(a store.Agent) Agent {
	return Agent{Name: a.Name, Description: a.Description, Focus: a.Focus, Allow: a.Allow, Block: a.Block, Provider: a.Provider,
		Default: a.Name == store.DefaultAgent}
}

func (t agentsTab) Agents(ctx context.Context) ([]Agent, error) {
	list, err := t.in.ListAgents(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Agent, 0, len(list))
	for _, a := range list {
		out = append(out, agentFrom(a))
	}
	return out, nil
}

func (t agentsTab) Agent(ctx context.Context, name string) (AgentPage, error) {
	a, err := t.in.ShowAgent(ctx, name)
	if err != nil {
		return AgentPage{}, err
	}
	calls, err := t.in.AgentCalls(ctx, name, agentRecent)
	if err != nil {
		return AgentPage{}, err
	}
	recent := make([]ActivityRow, 0, len(calls))
	for _, e := range calls {
		// The board shows durations to the millisecond, as the CLI does.
		recent = append(recent, ActivityRow{ID: e.ID, At: e.At, Agent: e.Agent, App: e.App, Tool: e.Tool, Tier: e.Tier, Args: e.Args, Outcome: e.Outcome,
			Took: e.Duration.Truncate(time.Millisecond)})
	}
	missing, err := t.in.FocusPlugins(ctx, a)
	if err != nil {
		return AgentPage{}, err
	}
	chats, err := t.in.AgentChats(ctx, a.Name)
	if err != nil {
		return AgentPage{}, err
	}
	page := AgentPage{Agent: agentFrom(a), Recent: recent, Providers: agents.Providers}
	for _, c := range chats {
		page.Chats = append(page.Chats, AgentChat{Chat: c.Chat, Switched: c.Switched})
	}
	for _, m := range missing {
		page.Missing = append(page.Missing, AgentPlugin{Name: m.Name, Why: m.Why, Install: !m.Installed})
	}
	return page, nil
}

func (t agentsTab) AddAgent(ctx context.Context, name, description string) (string, error) {
	r, err := t.in.AddAgent(ctx, name, agents.Spec{Description: description})
	if err != nil {
		return "", err
	}
	return r.Note(), nil
}

// EditAgent saves the edit form. The form sends the description every
// time; only one that changed chooses the focus anew, which is otherwise
// chosen once, when the agent is added (C6).
func (t agentsTab) EditAgent(ctx context.Context, name string, e AgentEdit) (string, error) {
	cur, err := t.in.ShowAgent(ctx, name)
	if err != nil {
		return "", err
	}
	if e.Description == cur.Description {
		e.Description = ""
	}
	r, err := t.in.EditAgent(ctx, name, agents.Spec{Description: e.Description, Allow: e.Allow, Block: e.Block, Provider: e.Provider})
	if err != nil {
		return "", err
	}
	return r.Note(), nil
}

func (t agentsTab) RemoveAgent(ctx context.Context, name string) (string, error) {
	r, err := t.in.RemoveAgent(ctx, name)
	if err != nil {
		return "", err
	}
	return r.Note(), nil
}

func (t agentsTab) SwitchChat(ctx context.Context, chat, agent string) (string, error) {
	if err := t.in.SwitchChat(ctx, chat, agent); err != nil {
		return "", err
	}
	if agent == "" {
		return "The switch of " + chat + " is taken back: the agent the config gives it answers it again.", nil
	}
	return "Agent " + agent + " answers " + chat + " from now on.", nil
}
