package catalog

import (
	"slices"
	"strings"
	"sync"
	"time"
)

// Preferences break ties between services of one kind (C5): when a
// message matches two of them equally (Spotify and YouTube Music for "put
// some music on", two mail servers for "any new mail?"), the one the owner
// marked preferred last wins, else the one used last; when neither tells
// them apart, both stay. Keys are "plugin:NAME" and "mcp:SERVER"; a server
// of a store plugin answers to both. The zero value breaks no tie.
type Preferences struct {
	Marked map[string]time.Time // when the owner marked it preferred
	Used   map[string]time.Time // when one of its tools was last called

	// load, when set, reads Marked and Used at the first tie (Lazy).
	load func() *Preferences
	once sync.Once
	got  *Preferences
}

// Lazy returns preferences that load reads only when a tie needs
// breaking: most turns have none, and reading the last uses scans the
// activity board. A nil result of load breaks no tie.
func Lazy(load func() *Preferences) *Preferences { return &Preferences{load: load} }

// resolved is p with what it stands for read, or nil.
func (p *Preferences) resolved() *Preferences {
	if p == nil || p.load == nil {
		return p
	}
	p.once.Do(func() { p.got = p.load() })
	return p.got
}

// UsageFromTools turns the last call per capability id (the activity
// board's) into the last use per service key: "mcp:maps/route" counts for
// "mcp:maps" and, when v knows the server as a store plugin's, for that
// plugin too; "plugin:spotify" counts for "plugin:spotify". v may be nil.
func UsageFromTools(last map[string]time.Time, v *View) map[string]time.Time {
	out := map[string]time.Time{}
	note := func(key string, at time.Time) {
		if at.After(out[key]) {
			out[key] = at
		}
	}
	for id, at := range last {
		kind, name, err := ParseID(id)
		if err != nil || kind != KindMCP && kind != KindPlugin {
			continue
		}
		name, _, _ = strings.Cut(name, "/") // a tool counts for its service
		if kind == KindMCP {
			if s, ok := v.serverOrNil(name); ok && s.Plugin != "" {
				note("plugin:"+s.Plugin, at)
			}
		}
		note(string(kind)+":"+name, at)
	}
	return out
}

func (v *View) serverOrNil(id string) (*Server, bool) {
	if v == nil {
		return nil, false
	}
	return v.Server(id)
}

// Tie says which of several equally matched services won, over which,
// and why; route prints it and `route --json` carries it.
type Tie struct {
	Winner string   `json:"winner"`
	Over   []string `json:"over"`
	Why    string   `json:"why"`
}

// Contender is one side of a tie: a plugin, an MCP server, or a
// server with its plugin.
type Contender struct {
	Name   string // as route names it: the server id, or the plugin name
	Plugin string
	Server string
}

func (s Contender) marked(p *Preferences) time.Time { return s.latest(p.Marked) }
func (s Contender) used(p *Preferences) time.Time   { return s.latest(p.Used) }

func (s Contender) latest(m map[string]time.Time) time.Time {
	var t time.Time
	if s.Plugin != "" && m["plugin:"+s.Plugin].After(t) {
		t = m["plugin:"+s.Plugin]
	}
	if s.Server != "" && m["mcp:"+s.Server].After(t) {
		t = m["mcp:"+s.Server]
	}
	return t
}

// Break picks the winner among services that matched equally: the newest
// mark of the owner, else the newest use. It reports false when nothing
// tells the leader apart from the next (no mark and no use, or the same
// time), so both stay.
func (p *Preferences) Break(list []Contender) (Tie, bool) {
	if len(list) < 2 {
		return Tie{}, false
	}
	if p = p.resolved(); p == nil {
		return Tie{}, false
	}
	for _, rule := range []struct {
		at  func(Contender, *Preferences) time.Time
		why string
	}{
		{Contender.marked, "preferred by the owner"},
		{Contender.used, "used last"},
	} {
		best, second := -1, time.Time{}
		var bestAt time.Time
		for i, s := range list {
			at := rule.at(s, p)
			switch {
			case best < 0 || at.After(bestAt):
				if best >= 0 {
					second = bestAt
				}
				best, bestAt = i, at
			case at.After(second):
				second = at
			}
		}
		if bestAt.IsZero() || !bestAt.After(second) {
			continue
		}
		t := Tie{Winner: list[best].Name, Why: rule.why}
		for i, s := range list {
			if i != best {
				t.Over = append(t.Over, s.Name)
			}
		}
		slices.Sort(t.Over)
		return t, true
	}
	return Tie{}, false
}

// String says the outcome for one contender, in route's words.
func (t *Tie) String(name string) string {
	if name == t.Winner {
		return "won the tie with " + strings.Join(t.Over, ", ") + ": " + t.Why
	}
	return "lost the tie to " + t.Winner + ", " + t.Why
}
