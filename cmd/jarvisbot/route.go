package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/evalset"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// maxRouteLine bounds one message read from stdin by `route -`.
const maxRouteLine = 4 << 20

// routeOutput is one line of `route --json`. Evaluations parse it: keep
// the field names stable.
type routeOutput struct {
	Message      string                 `json:"message"`
	Agent        string                 `json:"agent"`
	MCP          []catalog.ServerChoice `json:"mcp"`
	Tools        []string               `json:"tools"`
	Skills       []routeSkill           `json:"skills"`
	SchemaTokens int                    `json:"schema_tokens"`
}

// routeSkill is a matched skill and how it may enter the turn (S3, S4).
type routeSkill struct {
	ID     string  `json:"id"`
	Plugin *string `json:"plugin"` // null for a skill of no plugin
	Score  float64 `json:"score"`
	Entry  string  `json:"entry"`
}

// skillMatches ranks the enabled skills for msg. When the best match is a
// plugin's manual that enters the turn and clearly leads, it also names
// that plugin, so that its servers can come with it.
func skillMatches(r *skills.Ranker, msg string) (out []routeSkill, manuals []string) {
	out = []routeSkill{}
	if r == nil {
		return out, nil
	}
	ms := r.Rank(msg, nil)
	if p := skills.LeadingManual(ms); p != "" {
		manuals = []string{p}
	}
	for _, m := range ms {
		rs := routeSkill{ID: m.ID(), Score: math.Round(m.Score*1000) / 1000, Entry: string(m.Entry)}
		if m.Skill.Plugin != "" {
			p := m.Skill.Plugin
			rs.Plugin = &p
		}
		out = append(out, rs)
	}
	return out, manuals
}

// cmdRoute explains a turn without running it (C7).
func cmdRoute(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "route", "route [--agent NAME] [--catalog SNAPSHOT.json] [--connect-all] [--json] MESSAGE | -")
	agentName := fs.String("agent", store.DefaultAgent, "the agent whose turn to explain")
	snapshot := fs.String("catalog", "", "load MCP servers from a catalog snapshot, as if connected")
	connectAll := fs.Bool("connect-all", false, "treat every store plugin as connected: all manuals are on (for evaluation)")
	asJSON := fs.Bool("json", false, "one JSON object per message, one per line")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fs.Usage()
		return jarvisbot.Errorf(jarvisbot.EINVALID, "give a message, or - to read one message per line from stdin")
	}
	rp, err := a.planRoute(ctx, *agentName, *snapshot, *connectAll)
	if err != nil {
		return err
	}
	pl := rp.plan
	answer := func(msg string) error {
		msg = strings.ToValidUTF8(msg, "\uFFFD")
		var t catalog.Turn
		matched, manuals := skillMatches(rp.ranker, msg)
		pl.Turn(msg, &t, manuals...)
		out := routeOutput{Message: msg, Agent: pl.Policy().Agent, MCP: rp.explain(&t), Tools: make([]string, 0, len(t.Tools)), Skills: matched}
		for _, cp := range t.Tools {
			out.Tools = append(out.Tools, cp.ID)
			out.SchemaTokens += evalset.Tokens(cp)
		}
		if *asJSON {
			b, err := json.Marshal(out)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(a.stdout, "%s\n", b)
			return err
		}
		writeRoute(a.stdout, out, t.Tools, pl)
		return nil
	}
	if len(pos) == 1 && pos[0] == "-" {
		sc := bufio.NewScanner(a.stdin)
		sc.Buffer(make([]byte, 64<<10), maxRouteLine)
		for sc.Scan() {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := answer(strings.TrimRight(sc.Text(), "\r")); err != nil {
				return err
			}
		}
		if err := sc.Err(); err != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "read messages from stdin (one per line, at most %d MiB each): %w", maxRouteLine>>20, err)
		}
		return nil
	}
	return answer(strings.Join(pos, " "))
}

// routePlan is what explaining turns needs: the agent's plan, the ranker
// of its enabled skills, and the plugins waiting for a renewed sign-in.
type routePlan struct {
	plan      *catalog.Plan
	ranker    *skills.Ranker
	attention map[string]bool // plugins under Needs attention (P4)
}

// explain is the turn's per-server explanation (C7), saying for a server
// of a plugin under Needs attention that its sign-in needs renewing and
// how, where the catalog only knows it is not connected.
func (rp routePlan) explain(t *catalog.Turn) []catalog.ServerChoice {
	out := t.Explain()
	if len(rp.attention) == 0 {
		return out
	}
	v := rp.plan.View()
	for i, m := range out {
		if srv, ok := v.Server(m.Server); ok && !m.Offered && rp.attention[srv.Plugin] {
			out[i].Because = renewHint(srv.Plugin)
		}
	}
	return out
}

// plan builds the catalog and resolves steps 1-3 for the named agent, and
// ranks the skills enabled for it: the manuals of connected plugins (those
// of the snapshot's servers, or every store plugin with connectAll), the
// shipped general skills, the owner's and the agent's own.
func (a *app) plan(ctx context.Context, agentName, snapshot string, connectAll bool) (*catalog.Plan, *skills.Ranker, error) {
	rp, err := a.planRoute(ctx, agentName, snapshot, connectAll)
	return rp.plan, rp.ranker, err
}

// planRoute is plan, with the plugins under Needs attention.
func (a *app) planRoute(ctx context.Context, agentName, snapshot string, connectAll bool) (routePlan, error) {
	var rp routePlan
	cfg, err := a.loadConfig()
	if err != nil {
		return rp, err
	}
	c, err := buildCatalog(cfg, snapshot)
	if err != nil {
		return rp, err
	}
	view := c.View()
	db, err := a.openStoreWith(ctx, cfg, view)
	if err != nil {
		return rp, err
	}
	defer db.Close()
	ag, err := db.Agent(ctx, agentName)
	if err != nil {
		if jarvisbot.ErrorCode(err) == jarvisbot.ENOTFOUND {
			return rp, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no agent named %q (add it under agents: in the config, or use --agent %s)", agentName, store.DefaultAgent)
		}
		return rp, err
	}
	on, err := connectedPlugins(ctx, db, view)
	if err != nil {
		return rp, err
	}
	if rp.attention, err = pluginsNeedingAttention(ctx, db); err != nil {
		return rp, err
	}
	sc := skillScope{agent: ag.Name, connected: on, connectAll: connectAll}
	list, err := enabledSkills(ctx, cfg, db, sc, a.stderr)
	if err != nil {
		return rp, err
	}
	if len(list) > 0 {
		rp.ranker = skills.NewRanker(list)
	}
	rp.plan = view.Plan(catalog.Policy{Agent: ag.Name, Allow: ag.Allow, Block: ag.Block, Focus: ag.Focus})
	return rp, nil
}

func writeRoute(w io.Writer, out routeOutput, tools []*catalog.Capability, pl *catalog.Plan) {
	fmt.Fprintf(w, "Message: %q\n", out.Message)
	pol := pl.Policy()
	fmt.Fprintf(w, "Agent:   %s", out.Agent)
	if len(pol.Focus) > 0 {
		fmt.Fprintf(w, " (focus: %s)", strings.Join(pol.Focus, ", "))
	}
	fmt.Fprintln(w)
	if len(out.MCP) == 0 {
		fmt.Fprintln(w, "\nMCP servers: none connected (load a snapshot with --catalog)")
	} else {
		fmt.Fprintln(w, "\nMCP servers:")
		for _, m := range out.MCP {
			if m.Offered {
				fmt.Fprintf(w, "  + %s: offered, %d tools, because %s\n", m.Server, m.Tools, m.Because)
			} else {
				fmt.Fprintf(w, "  - %s: not offered: %s\n", m.Server, m.Because)
			}
		}
	}
	fmt.Fprintf(w, "\nTools the model gets, in order (%d, ~%d schema tokens):\n", len(tools), out.SchemaTokens)
	prefix := len(pl.Prefix())
	for i, cp := range tools {
		if i == prefix && prefix > 0 && prefix < len(tools) {
			fmt.Fprintln(w, "  -- per-turn MCP tools (after the cached prefix) --")
		}
		fmt.Fprintf(w, "  %3d. %s [%s]\n", i+1, cp.ID, tierText(cp))
	}
	byReason := map[catalog.Reason][]string{}
	var order []catalog.Reason
	for _, wh := range pl.Withheld() {
		if byReason[wh.Reason] == nil {
			order = append(order, wh.Reason)
		}
		byReason[wh.Reason] = append(byReason[wh.Reason], wh.ID)
	}
	if len(order) > 0 {
		fmt.Fprintln(w, "\nWithheld:")
		for _, r := range order {
			ids := byReason[r]
			more := ""
			if len(ids) > 6 {
				more = fmt.Sprintf(" and %d more", len(ids)-6)
				ids = ids[:6]
			}
			fmt.Fprintf(w, "  %s: %s%s\n", r, strings.Join(ids, ", "), more)
		}
	}
	if len(out.Skills) == 0 {
		fmt.Fprintln(w, "\nSkills: none matched")
		return
	}
	fmt.Fprintln(w, "\nSkills (best first):")
	for _, sk := range out.Skills {
		fmt.Fprintf(w, "  %s  score %.2f  entry %s\n", sk.ID, sk.Score, sk.Entry)
	}
}

// tierText shows a capability's tier, with the per-action tiers of tools
// like the wiki ("monitor; list, read, search: safe").
func tierText(cp *catalog.Capability) string {
	if len(cp.ActionTiers) == 0 {
		return string(cp.Tier)
	}
	by := map[catalog.Tier][]string{}
	for action, t := range cp.ActionTiers {
		by[t] = append(by[t], action)
	}
	var parts []string
	for _, t := range []catalog.Tier{catalog.TierSafe, catalog.TierMonitor, catalog.TierAsk} {
		if acts := by[t]; len(acts) > 0 {
			slices.Sort(acts)
			parts = append(parts, strings.Join(acts, ", ")+": "+string(t))
		}
	}
	return strings.Join(parts, "; ")
}
