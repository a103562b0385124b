package catalog

import (
	"fmt"
	"slices"
	"strings"
)

// Policy is what an agent's definition says about its tools (C3).
type Policy struct {
	Agent string
	// Allow, when not empty, is the agent's short allow-list: only matching
	// capabilities are granted. Block removes matching capabilities.
	// Focus names the agent's own tools (C6). Each entry is a capability
	// id, "mcp:SERVER" or "mcp:SERVER/*" for a whole server, or a prefix
	// ending in "*" ("plugin:*").
	Allow []string
	Block []string
	Focus []string
}

// Reason says why a capability is not in an agent's list.
type Reason string

// Reasons for withholding, in the order the steps apply them.
const (
	ReasonNever        Reason = "never-list"            // C4: app control, never offered
	ReasonNotAllowed   Reason = "not on the allow-list" // step 1
	ReasonBlocked      Reason = "on the block-list"     // step 2
	ReasonNotConnected Reason = "not connected"         // step 2
	ReasonSkill        Reason = "skills enter as instructions, not tools"
)

// Withheld is a capability left out of an agent's list, and why.
type Withheld struct {
	ID     string
	Reason Reason
}

// Plan is steps 1-3 of C3 resolved for one agent on one view: everything
// that does not change from turn to turn. It is immutable and safe for
// concurrent use.
type Plan struct {
	view   *View
	policy Policy
	// prefix is the stable part of every turn's list: focus first, then
	// the rest in the catalog's fixed order, then the tools of MCP servers
	// in the agent's focus. It is byte-identical from turn to turn, so
	// providers can cache it.
	prefix []*Capability
	// gated holds, per view server, the granted tools that the gate offers
	// turn by turn; nil for a server in focus (always offered) or with no
	// granted tool.
	gated    [][]*Capability
	srvState []serverState
	withheld []Withheld
	// grantedOffline marks, per view server, a server that is not
	// connected but has a tool steps 1-2 would grant: the turn may want it
	// once it answers (Turn.Offline).
	grantedOffline []bool
}

type serverState uint8

const (
	srvGated   serverState = iota // granted tools, decided by the gate each turn
	srvFocus                      // in the agent's focus: always offered
	srvNone                       // no granted tool (blocked, not allowed, never-list)
	srvOffline                    // not connected
)

// Plan resolves steps 1-3 for an agent.
func (v *View) Plan(p Policy) *Plan {
	pl := &Plan{view: v, policy: p, gated: make([][]*Capability, len(v.servers)), srvState: make([]serverState, len(v.servers)),
		grantedOffline: make([]bool, len(v.servers))}
	// One backing array for every list keeps planning to a handful of
	// allocations: it runs again whenever the catalog or the agent changes.
	all := make([]*Capability, 0, 2*len(v.caps))
	for si, n := range v.srvTools {
		pl.gated[si] = all[len(all) : len(all) : len(all)+n]
		all = all[:len(all)+n]
	}
	var focus, focusMCP []*Capability
	rest := make([]*Capability, 0, len(v.caps))
	focusedServer := make([]bool, len(v.servers))
	for i, s := range v.servers {
		if matchAny(p.Focus, "mcp:"+s.ID+"/*", s.ID) {
			focusedServer[i] = true
		}
	}
	for i := range v.caps {
		cp := &v.caps[i]
		var why Reason
		switch {
		case v.never[i]:
			why = ReasonNever
		case len(p.Allow) > 0 && !matchAny(p.Allow, cp.ID, cp.Server):
			why = ReasonNotAllowed
		case matchAny(p.Block, cp.ID, cp.Server):
			why = ReasonBlocked
		case !cp.Connected:
			why = ReasonNotConnected
		case cp.Kind == KindSkill:
			why = ReasonSkill
		}
		if why != "" {
			pl.withheld = append(pl.withheld, Withheld{ID: cp.ID, Reason: why})
			if why == ReasonNotConnected && cp.Server != "" {
				pl.grantedOffline[v.srvIdx[cp.Server]] = true
			}
			continue
		}
		switch {
		case cp.Server != "":
			si := v.srvIdx[cp.Server]
			if focusedServer[si] || matchAny(p.Focus, cp.ID, "") {
				focusMCP = append(focusMCP, cp)
				focusedServer[si] = true
			} else {
				pl.gated[si] = append(pl.gated[si], cp)
			}
		case matchAny(p.Focus, cp.ID, ""):
			focus = append(focus, cp)
		default:
			rest = append(rest, cp)
		}
	}
	pl.prefix = append(all[len(all):len(all):cap(all)], focus...)
	pl.prefix = append(append(pl.prefix, focusMCP...), rest...)
	for i, s := range v.servers {
		switch {
		case !s.Connected:
			pl.srvState[i] = srvOffline
		case focusedServer[i]:
			pl.srvState[i] = srvFocus
			pl.gated[i] = nil
		case len(pl.gated[i]) == 0:
			pl.srvState[i] = srvNone
		}
	}
	return pl
}

// Covers reports whether any of an agent's patterns (focus, allow or block)
// covers a capability id or, for server != "", that server's tools, as
// planning reads them: jobs choose an agent by what its focus covers.
func Covers(patterns []string, id, server string) bool { return matchAny(patterns, id, server) }

// matchAny reports whether any pattern matches a capability id (or, for
// MCP tools, their server).
func matchAny(patterns []string, id, server string) bool {
	for _, p := range patterns {
		switch {
		case p == id:
			return true
		case server != "" && isServerPattern(p, server):
			return true
		case strings.HasSuffix(p, "*") && strings.HasPrefix(id, p[:len(p)-1]):
			return true
		}
	}
	return false
}

// Prefix returns the stable part of the agent's tool list. Do not modify.
func (pl *Plan) Prefix() []*Capability { return pl.prefix }

// Withheld returns what steps 1-2 left out, and why.
func (pl *Plan) Withheld() []Withheld { return pl.withheld }

// Policy returns the policy the plan was made from.
func (pl *Plan) Policy() Policy { return pl.policy }

// GrantedSchemaBytes is what offering every tool the agent is granted and
// can reach would cost in a request (SchemaBytes summed): the list a turn
// would carry without the gate, against which the usage figures show what
// the gate saved (A5).
func (pl *Plan) GrantedSchemaBytes() int {
	n := 0
	for _, cp := range pl.prefix {
		n += cp.SchemaBytes()
	}
	for _, tools := range pl.gated {
		for _, cp := range tools {
			n += cp.SchemaBytes()
		}
	}
	return n
}

// Turn is one turn's resolution: the exact ordered tool list and the gate's
// decisions. Reuse a Turn across calls to keep resolution allocation-light.
type Turn struct {
	Tools     []*Capability
	Decisions []Decision
	// Prefer, when set, breaks ties between servers that the message's
	// words match equally: only the winner is offered (prefer.go).
	Prefer *Preferences
	plan   *Plan
	ties   []*Tie // per decision: the tie it was part of, if any
}

// Turn runs step 4, the MCP gate, for one message and fills t: the stable
// prefix first, then the tools of each offered server in server order.
//
// manuals names the store plugins whose manual the skill scorer found for
// the message (S3). When the message's words point at no server, the
// servers of those plugins are offered: a paraphrase ("Anything planned
// for Wednesday?") says none of the calendar card's words but finds the
// calendar manual by the words its author listed. When the words already
// point somewhere, the manuals add nothing, so a weak manual match never
// widens a turn the gate has decided.
func (pl *Plan) Turn(msg string, t *Turn, manuals ...string) {
	t.plan = pl
	t.Tools = append(t.Tools[:0], pl.prefix...)
	t.Decisions = pl.view.gate().Check(msg, t.Decisions[:0])
	byWords := false
	for i := range t.Decisions {
		if pl.srvState[i] == srvGated && t.Decisions[i].Offered {
			byWords = true
		}
	}
	for i := range t.Decisions {
		d := &t.Decisions[i]
		switch pl.srvState[i] {
		case srvFocus:
			d.Offered = true
		case srvNone, srvOffline:
			d.Offered = false
		default:
			// A manual does not bring back a server whose everyday
			// words the gate read in a message that asks for nothing
			// (Decision.unasked): the manual matched the same words.
			if !byWords && len(manuals) > 0 && !d.unasked {
				if plugin := pl.view.servers[i].Plugin; plugin != "" && slices.Contains(manuals, plugin) {
					d.Offered, d.Manual = true, plugin
				}
			}
		}
	}
	t.ties = t.ties[:0]
	if byWords && t.Prefer != nil {
		pl.breakTies(t)
	}
	for i := range t.Decisions {
		if pl.srvState[i] == srvGated && t.Decisions[i].Offered {
			t.Tools = append(t.Tools, pl.gated[i]...)
		}
	}
}

// breakTies offers only the winner among servers that the message's words
// match equally: the same score from the same message words, none of them
// named. Servers that nothing tells apart all stay.
func (pl *Plan) breakTies(t *Turn) {
	var groups map[string][]int
	for i := range t.Decisions {
		d := &t.Decisions[i]
		if pl.srvState[i] != srvGated || !d.Offered || d.Manual != "" {
			continue
		}
		key := tieKey(d)
		if key == "" {
			continue
		}
		if groups == nil {
			groups = map[string][]int{}
		}
		groups[key] = append(groups[key], i)
	}
	for _, idx := range groups {
		if len(idx) < 2 {
			continue
		}
		list := make([]Contender, len(idx))
		for k, i := range idx {
			s := &pl.view.servers[i]
			list[k] = Contender{Name: s.ID, Plugin: s.Plugin, Server: s.ID}
		}
		tie, ok := t.Prefer.Break(list)
		if !ok {
			continue
		}
		if t.ties == nil || len(t.ties) < len(t.Decisions) {
			t.ties = make([]*Tie, len(t.Decisions))
		}
		for _, i := range idx {
			t.ties[i] = &tie
			if t.Decisions[i].Server != tie.Winner {
				t.Decisions[i].Offered = false
			}
		}
	}
}

// tieKey is what two decisions must share to tie: their score and the
// message words their evidence rests on. A server named by the message
// ties with none.
func tieKey(d *Decision) string {
	ev := d.Evidence()
	ws := make([]string, 0, len(ev))
	for _, e := range ev {
		if e.Kind == EvName {
			return ""
		}
		ws = append(ws, e.Word)
	}
	slices.Sort(ws)
	return fmt.Sprint(d.Score, ws)
}

// Tie returns the tie a server was part of this turn, or nil.
func (t *Turn) Tie(server string) *Tie {
	for i, tie := range t.ties {
		if tie != nil && t.Decisions[i].Server == server {
			return tie
		}
	}
	return nil
}

// Offline returns the servers this turn would offer if they were
// connected: named by the message, matched by its words or by a manual
// that entered, or in the agent's focus, with a tool the agent may use.
// A runtime can wait for such a server while it is still starting rather
// than answer without it (route and the turn then agree).
func (t *Turn) Offline(manuals ...string) []string {
	pl := t.plan
	var out []string
	for i := range t.Decisions {
		if pl.srvState[i] != srvOffline || !pl.grantedOffline[i] {
			continue
		}
		s := &pl.view.servers[i]
		if t.Decisions[i].Evident() || matchAny(pl.policy.Focus, "mcp:"+s.ID+"/*", s.ID) ||
			(s.Plugin != "" && slices.Contains(manuals, s.Plugin)) {
			out = append(out, s.ID)
		}
	}
	return out
}

// ServerChoice is the explained gate decision on one server for `route`.
type ServerChoice struct {
	Server  string `json:"server"`
	Offered bool   `json:"offered"`
	Because string `json:"because"`
	Tools   int    `json:"tools"`
	// Tie, when the message matched this server and another of its kind
	// equally, says which won and why (the owner's preference, else the
	// one used last).
	Tie *Tie `json:"tie,omitempty"`
}

// Explain returns, per MCP server, whether its tools were offered this turn
// and why.
func (t *Turn) Explain() []ServerChoice {
	pl := t.plan
	out := make([]ServerChoice, 0, len(t.Decisions))
	for i := range t.Decisions {
		d := &t.Decisions[i]
		c := ServerChoice{Server: d.Server, Offered: d.Offered}
		switch pl.srvState[i] {
		case srvFocus:
			c.Because = "in the focus of agent " + quote(pl.policy.Agent) + ": always offered"
			for _, cp := range pl.prefix {
				if cp.Server == d.Server {
					c.Tools++
				}
			}
		case srvOffline:
			c.Because = "not connected"
		case srvNone:
			c.Because = "no tool of this server is granted to agent " + quote(pl.policy.Agent)
		default:
			c.Because = d.Because()
			if i < len(t.ties) && t.ties[i] != nil {
				// The words were enough for both; the tie decided.
				matched := *d
				matched.Offered = true
				c.Tie = t.ties[i]
				c.Because = matched.Because() + "; " + c.Tie.String(d.Server)
			}
			if d.Offered {
				c.Tools = len(pl.gated[i])
			}
		}
		out = append(out, c)
	}
	return out
}

func quote(s string) string { return `"` + s + `"` }

// View returns the catalog view the plan was made on.
func (pl *Plan) View() *View { return pl.view }

// isServerPattern reports whether p is "mcp:SERVER" or "mcp:SERVER/*"
// (or "plugin:…" for a built-in plugin's tools, served like a server's),
// without building either string: planning runs it for every capability.
func isServerPattern(p, server string) bool {
	rest, ok := strings.CutPrefix(p, "mcp:")
	if !ok {
		if rest, ok = strings.CutPrefix(p, "plugin:"); !ok {
			return false
		}
	}
	rest, ok = strings.CutPrefix(rest, server)
	return ok && (rest == "" || rest == "/*")
}
