// Package route explains a turn without running it (C7): for one agent and
// one message, which MCP servers are offered and why, the tools the model
// gets in order with their schema cost, what is withheld and why, the
// skills that match with how each may enter the turn (S3, S4), and the
// servers left available on request (C8). `jarvisbot
// route` prints it, and `route --json` writes Output, which evaluations
// parse.
package route

import (
	"math"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/catalog/evalset"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/skills"
)

// Output is one line of `route --json`. Evaluations parse it: keep the
// field names, their order and their values stable.
type Output struct {
	Message      string                 `json:"message"`
	Agent        string                 `json:"agent"`
	MCP          []catalog.ServerChoice `json:"mcp"`
	Tools        []string               `json:"tools"`
	Skills       []Skill                `json:"skills"`
	SchemaTokens int                    `json:"schema_tokens"`
	// OnRequest names the connected servers the agent may use that this
	// turn did not offer: the model can still ask for their tools (C8).
	OnRequest []string `json:"on_request"`
}

// Skill is a matched skill and how it may enter the turn (S3, S4).
type Skill struct {
	ID     string  `json:"id"`
	Plugin *string `json:"plugin"` // null for a skill of no plugin
	Score  float64 `json:"score"`
	Entry  string  `json:"entry"`
	// Tie, when this manual tied with another of its kind, says which
	// won and why; the loser's entry is "none" (C5).
	Tie *catalog.Tie `json:"tie,omitempty"`
	// Learned are the words learned for the skill from the owner's turns
	// that the message says (C9): part of its score.
	Learned []string `json:"learned,omitempty"`
}

// Planner explains the turns of one agent.
type Planner struct {
	Plan *catalog.Plan
	// Ranker ranks the skills enabled for the agent; nil when none is.
	Ranker *skills.Ranker
	// Attention holds the plugins under Needs attention (P4).
	Attention map[string]bool
	// Prefer breaks ties between services of one kind: the owner's
	// preference, else the one used last. Nil breaks none.
	Prefer *catalog.Preferences
}

// Explanation is a turn explained: Output, and what the text form shows
// besides it.
type Explanation struct {
	Output
	Tools    []*catalog.Capability // offered, in order
	Focus    []string              // the agent's focus
	Prefix   int                   // how many tools form the cached prefix
	Withheld []Withheld            // by reason, in the order the steps apply
}

// Withheld is the capabilities one reason withholds: the first six of
// them, and how many more.
type Withheld struct {
	Reason catalog.Reason
	IDs    []string
	More   int
}

// maxWithheldShown bounds the ids listed per reason.
const maxWithheldShown = 6

// Explain explains msg's turn; msg is made valid UTF-8 first.
func (p Planner) Explain(msg string) Explanation {
	msg = strings.ToValidUTF8(msg, "\uFFFD")
	t := catalog.Turn{Prefer: p.Prefer}
	matched, manuals := p.Skills(msg)
	p.Plan.Turn(msg, &t, manuals...)
	out := Output{Message: msg, Agent: p.Plan.Policy().Agent, MCP: p.servers(&t), Tools: make([]string, 0, len(t.Tools)), Skills: matched, OnRequest: t.OnRequest()}
	for _, cp := range t.Tools {
		out.Tools = append(out.Tools, cp.ID)
		out.SchemaTokens += evalset.Tokens(cp)
	}
	return Explanation{Output: out, Tools: t.Tools, Focus: p.Plan.Policy().Focus, Prefix: len(p.Plan.Prefix()), Withheld: p.withheld()}
}

// Skills ranks the enabled skills for msg. When the best match is a
// plugin's manual that enters the turn and clearly leads, it also names
// that plugin, so that its servers can come with it.
func (p Planner) Skills(msg string) (out []Skill, manuals []string) {
	out = []Skill{}
	if p.Ranker == nil {
		return out, nil
	}
	ms := p.Ranker.Rank(msg, nil)
	lead, tie := skills.ManualTie(ms, p.Prefer)
	if lead != "" {
		manuals = []string{lead}
	}
	for _, m := range ms {
		rs := Skill{ID: m.ID(), Score: math.Round(m.Score*1000) / 1000, Entry: string(m.Entry), Learned: m.Learned}
		if skills.InTie(m, tie) {
			rs.Tie = tie
			if skills.LostTie(m, tie) {
				rs.Entry = string(skills.EntryNone)
			}
		}
		if m.Skill.Plugin != "" {
			plugin := m.Skill.Plugin
			rs.Plugin = &plugin
		}
		out = append(out, rs)
	}
	return out, manuals
}

// servers is the turn's per-server explanation (C7), saying for a server
// of a plugin under Needs attention that its sign-in needs renewing and
// how, where the catalog only knows it is not connected.
func (p Planner) servers(t *catalog.Turn) []catalog.ServerChoice {
	out := t.Explain()
	if len(p.Attention) == 0 {
		return out
	}
	v := p.Plan.View()
	for i, m := range out {
		if srv, ok := v.Server(m.Server); ok && !m.Offered && p.Attention[srv.Plugin] {
			out[i].Because = collection.RenewHint(srv.Plugin)
		}
	}
	return out
}

// withheld groups the plan's withheld capabilities by reason.
func (p Planner) withheld() []Withheld {
	var out []Withheld
	at := map[catalog.Reason]int{}
	for _, wh := range p.Plan.Withheld() {
		i, ok := at[wh.Reason]
		if !ok {
			i = len(out)
			at[wh.Reason] = i
			out = append(out, Withheld{Reason: wh.Reason})
		}
		if len(out[i].IDs) < maxWithheldShown {
			out[i].IDs = append(out[i].IDs, wh.ID)
		} else {
			out[i].More++
		}
	}
	return out
}

// TierText shows a capability's tier, with the per-action tiers of tools
// like the wiki ("monitor; list, read, search: safe").
func TierText(cp *catalog.Capability) string {
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
