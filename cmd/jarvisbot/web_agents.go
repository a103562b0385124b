package main

import (
	"context"
	"strings"

	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
	"github.com/jarvisbot/jarvisbot/web"
)

// webAgents is the dashboard's Agents tab over this session: `jarvisbot
// agents`' code, with the live catalog choosing focus (C6).
func (a *cli) webAgents(cfg config.Config, s *app.Session) web.Agents {
	return agentsTab{db: s.DB, focus: focusNow{s.Catalog}}
}

type agentsTab struct {
	db    *sqlstore.DB
	focus agents.Focuser
}

// agentRecent is how many of an agent's calls its page shows.
const agentRecent = 10

func webAgent(a store.Agent) web.Agent {
	return web.Agent{Name: a.Name, Description: a.Description, Focus: a.Focus, Allow: a.Allow, Block: a.Block, Provider: a.Provider,
		Default: a.Name == store.DefaultAgent}
}

func (t agentsTab) Agents(ctx context.Context) ([]web.Agent, error) {
	list, err := t.db.Agents(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]web.Agent, 0, len(list))
	for _, a := range list {
		out = append(out, webAgent(a))
	}
	return out, nil
}

func (t agentsTab) Agent(ctx context.Context, name string) (web.AgentPage, error) {
	a, err := t.db.Agent(ctx, name)
	if err != nil {
		return web.AgentPage{}, err
	}
	rows, err := readActivity(ctx, t.db, store.ActivityFilter{Agent: name}, agentRecent)
	if err != nil {
		return web.AgentPage{}, err
	}
	return web.AgentPage{Agent: webAgent(a), Recent: webRows(rows), Providers: agents.Providers}, nil
}

func (t agentsTab) AddAgent(ctx context.Context, name, description string) (string, error) {
	var b strings.Builder
	err := addAgent(ctx, &b, t.db, t.focus, name, agents.Spec{Description: description})
	return strings.TrimSpace(b.String()), err
}

// EditAgent saves the edit form. The form sends the description every
// time; only one that changed chooses the focus anew, which is otherwise
// chosen once, when the agent is added (C6).
func (t agentsTab) EditAgent(ctx context.Context, name string, e web.AgentEdit) (string, error) {
	cur, err := t.db.Agent(ctx, name)
	if err != nil {
		return "", err
	}
	if e.Description == cur.Description {
		e.Description = ""
	}
	var b strings.Builder
	err = editAgent(ctx, &b, t.db, t.focus, name, agents.Spec{Description: e.Description, Allow: e.Allow, Block: e.Block, Provider: e.Provider})
	return strings.TrimSpace(b.String()), err
}

func (t agentsTab) RemoveAgent(ctx context.Context, name string) (string, error) {
	var b strings.Builder
	err := removeAgent(ctx, &b, t.db, name)
	return strings.TrimSpace(b.String()), err
}
