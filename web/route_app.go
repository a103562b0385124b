package web

import (
	"context"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/app/route"
	"github.com/jarvisbot/jarvisbot/store"
)

// RouteTab is the Route tab over the running session: the app layer's
// Route on the session's live catalog (what its MCP servers answer now),
// not on the cached tools `route` reads.
func RouteTab(s *app.Session) Route {
	return routeTab{s: s}
}

type routeTab struct{ s *app.Session }

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

func (t routeTab) Explain(ctx context.Context, agent, msg string) (RouteAnswer, error) {
	ex, err := t.s.Route(ctx, msg, agent)
	if err != nil {
		return RouteAnswer{}, err
	}
	return routeAnswer(ex), nil
}

// routeAnswer is an explained turn as the page shows it: what `route`
// prints, field by field.
func routeAnswer(ex route.Explanation) RouteAnswer {
	ans := RouteAnswer{Message: ex.Message, Agent: ex.Agent, Focus: ex.Focus, OnRequest: ex.OnRequest, SchemaTokens: ex.SchemaTokens}
	for _, m := range ex.MCP {
		ans.Servers = append(ans.Servers, RouteServer{Server: m.Server, Offered: m.Offered, Tools: m.Tools, Because: m.Because})
	}
	for i, cp := range ex.Tools {
		ans.Tools = append(ans.Tools, RouteTool{N: i + 1, ID: cp.ID, Tier: route.TierText(cp), Class: string(cp.Tier),
			PerTurn: i == ex.Prefix && ex.Prefix > 0 && ex.Prefix < len(ex.Tools)})
	}
	for _, g := range ex.Withheld {
		ans.Withheld = append(ans.Withheld, RouteWithheld{Reason: string(g.Reason), IDs: g.IDs, More: g.More})
	}
	for _, sk := range ex.Skills {
		rs := RouteSkill{ID: sk.ID, Score: sk.Score, Entry: sk.Entry}
		if len(sk.Learned) > 0 {
			rs.Learned = route.LearnedText(sk.Learned)
		}
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
