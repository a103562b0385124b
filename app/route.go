package app

import (
	"bytes"
	"context"
	"io"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app/assembly"
	"github.com/jarvisbot/jarvisbot/app/route"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// RouteOptions say whose turn `route` explains, over which catalog.
type RouteOptions struct {
	Agent string // "" is the default agent
	// Snapshot loads MCP servers from a catalog snapshot file, as if
	// connected; "" reads the stored servers' cached tools.
	Snapshot string
	// ConnectAll treats every store plugin as connected: all manuals are
	// on, and the built-in plugins' tools (for evaluation).
	ConnectAll bool
}

// RoutePlan plans one agent's turns, to explain them for many messages
// (`route -` reads one per line).
type RoutePlan struct {
	route.Planner
	// Warnings say which skills could not be read, one line each.
	Warnings []string
}

// PlanRoute builds the catalog `route` explains turns over (C7), without
// a running service, and plans the agent's turns on it.
func (a *Env) PlanRoute(ctx context.Context, o RouteOptions) (RoutePlan, error) {
	var p RoutePlan
	cfg, c, db, err := a.routeCatalog(ctx, o)
	if err != nil {
		return p, err
	}
	defer db.Close()
	var warn bytes.Buffer
	p.Planner, err = planRoute(ctx, cfg, db, c.View(), o.Agent, o.ConnectAll, &warn)
	p.Warnings = warningsOf(&warn)
	return p, err
}

// routeCatalog builds the catalog of o and opens the store beside it;
// the caller closes the store.
func (a *Env) routeCatalog(ctx context.Context, o RouteOptions) (config.Config, *catalog.Catalog, *sqlstore.DB, error) {
	cfg, err := a.LoadConfig()
	if err != nil {
		return cfg, nil, nil, err
	}
	c, err := BuildCatalog(cfg, o.Snapshot)
	if err != nil {
		return cfg, nil, nil, err
	}
	if o.ConnectAll {
		if err := assembly.ConnectBuiltins(c, cfg.DataDir); err != nil {
			return cfg, nil, nil, err
		}
	}
	db, err := a.OpenStoreWith(ctx, cfg, c.View())
	return cfg, c, db, err
}

// Route explains agent's turn for message without running it (C7), over
// the running service's live catalog (what its MCP servers answer now),
// not the cached tools `route` reads. Agent "" is the default one.
func (s *Service) Route(ctx context.Context, message, agent string) (route.Explanation, error) {
	p, err := planRoute(ctx, s.Config, s.DB, s.Catalog.View(), agent, false, s.Warn)
	if err != nil {
		return route.Explanation{}, err
	}
	return p.Explain(message), nil
}

// planRoute resolves steps 1-3 for the named agent on view, and ranks
// the skills enabled for it: the manuals of connected plugins (those of
// the view's servers, or every store plugin with connectAll), the shipped
// general skills, the owner's and the agent's own. Unreadable skills are
// reported to warn.
func planRoute(ctx context.Context, cfg config.Config, db *sqlstore.DB, view *catalog.View, agentName string, connectAll bool, warn io.Writer) (route.Planner, error) {
	var p route.Planner
	policy, list, err := agentSkills(ctx, cfg, db, view, agentName, connectAll, warn)
	if err != nil {
		return p, err
	}
	if p.Attention, err = collection.NeedingAttention(ctx, db); err != nil {
		return p, err
	}
	if list, err = skillsWithLearned(ctx, db, list); err != nil {
		return p, err
	}
	if p.Prefer, err = assembly.Preferences(ctx, db, view); err != nil {
		return p, err
	}
	p.Plan = view.Plan(policy)
	if len(list) > 0 {
		p.Ranker = skills.NewRanker(list)
	}
	return p, nil
}

// agentSkills reads the named agent's policy and the skills enabled for
// it, without the words they learned.
func agentSkills(ctx context.Context, cfg config.Config, db *sqlstore.DB, view *catalog.View, agentName string, connectAll bool, warn io.Writer) (catalog.Policy, []*skills.Skill, error) {
	if agentName == "" {
		agentName = store.DefaultAgent
	}
	ag, err := db.Agent(ctx, agentName)
	if err != nil {
		if jarvisbot.ErrorCode(err) == jarvisbot.ENOTFOUND {
			return catalog.Policy{}, nil, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no agent named %q (add it under agents: in the config, or use --agent %s)", agentName, store.DefaultAgent)
		}
		return catalog.Policy{}, nil, err
	}
	policy := catalog.Policy{Agent: ag.Name, Allow: ag.Allow, Block: ag.Block, Focus: ag.Focus}
	on, err := collection.Connected(ctx, db, view)
	if err != nil {
		return policy, nil, err
	}
	sc, err := SkillScope(cfg, ag.Name, on, warn)
	if err != nil {
		return policy, nil, err
	}
	sc.ConnectAll = connectAll
	list, err := skills.Enabled(ctx, db, sc, warn)
	return policy, list, err
}
