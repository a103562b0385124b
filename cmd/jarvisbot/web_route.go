package main

import (
	"context"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/app/route"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/web"
)

// webRoute is the dashboard's Route tab over this session: `route`'s
// planner on the session's live catalog (what its MCP servers answer
// now), not on the cached tools `route` reads.
func (a *cli) webRoute(cfg config.Config, s *app.Session) web.Route {
	return routeTab{cfg: cfg, s: s}
}

type routeTab struct {
	cfg config.Config
	s   *app.Session
}

func (t routeTab) Agents(ctx context.Context) ([]string, string, error) {
	list, err := t.s.DB.Agents(ctx)
	if err != nil {
		return nil, "", err
	}
	names := make([]string, 0, len(list))
	for _, ag := range list {
		names = append(names, ag.Name)
	}
	return names, store.DefaultAgent, nil
}

func (t routeTab) Explain(ctx context.Context, agent, msg string) (web.RouteAnswer, error) {
	if agent == "" {
		agent = store.DefaultAgent
	}
	p, err := routePlanner(ctx, t.cfg, t.s.DB, t.s.Catalog.View(), agent, false, t.s.Warn)
	if err != nil {
		return web.RouteAnswer{}, err
	}
	return routeAnswer(p.Explain(msg)), nil
}

// routeAnswer is an explained turn as the dashboard shows it: what
// writeRoute prints, field by field.
func routeAnswer(ex route.Explanation) web.RouteAnswer {
	ans := web.RouteAnswer{Message: ex.Message, Agent: ex.Agent, Focus: ex.Focus, OnRequest: ex.OnRequest, SchemaTokens: ex.SchemaTokens}
	for _, m := range ex.MCP {
		ans.Servers = append(ans.Servers, web.RouteServer{Server: m.Server, Offered: m.Offered, Tools: m.Tools, Because: m.Because})
	}
	for i, cp := range ex.Tools {
		ans.Tools = append(ans.Tools, web.RouteTool{N: i + 1, ID: cp.ID, Tier: route.TierText(cp), Class: string(cp.Tier),
			PerTurn: i == ex.Prefix && ex.Prefix > 0 && ex.Prefix < len(ex.Tools)})
	}
	for _, g := range ex.Withheld {
		ans.Withheld = append(ans.Withheld, web.RouteWithheld{Reason: string(g.Reason), IDs: g.IDs, More: g.More})
	}
	for _, sk := range ex.Skills {
		rs := web.RouteSkill{ID: sk.ID, Score: sk.Score, Entry: sk.Entry}
		if sk.Plugin != nil {
			rs.Plugin = *sk.Plugin
			if sk.Tie != nil {
				rs.Tie = sk.Tie.String(*sk.Plugin)
			}
		}
		ans.Skills = append(ans.Skills, rs)
	}
	return ans
}
