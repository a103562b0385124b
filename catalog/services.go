package catalog

import (
	"cmp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/words"
)

// The way back when the gate misses (C8). The gate decides from the
// message's words alone, and everyday phrasing can miss a server the turn
// needs. So the stable prompt lists every service the agent may use in one
// short line (Plan.Services), and the model can ask for one by name: the
// service's tools then join the turn (Plan.Requested), appended after what
// the turn already offers. Both come from the same plan as the turn's own
// tools, so grant, deny and the never-list hold for them as for any tool:
// asking can bring only what the agent may have anyway.

// Service is one connected MCP server an agent may use, as the stable
// prompt lists it: its id, title, store plugin and usage in a few words.
type Service struct {
	ID     string
	Title  string
	Plugin string // the store plugin it belongs to, "" if added by hand
	Usage  string // a few words: its usage card, its instructions' first sentence, or its derived vocabulary
}

// Bounds that keep a service's line short.
const (
	maxUsageBytes = 100
	maxUsageTerms = 8
)

// Services returns the MCP servers with a tool the agent may use, in
// server id order, each with its usage in a few words: the connected ones,
// and those with such a tool that are not connected now (starting, or
// reconnecting), which a request waits for or is told about. The list
// depends only on the plan, so it is the same bytes from turn to turn.
func (pl *Plan) Services() []Service {
	var out []Service
	for i := range pl.view.servers {
		if st := pl.srvState[i]; st != srvGated && st != srvFocus && (st != srvOffline || !pl.grantedOffline[i]) {
			continue
		}
		s := &pl.view.servers[i]
		out = append(out, Service{ID: s.ID, Title: s.Title, Plugin: s.Plugin, Usage: pl.view.usages()[i]})
	}
	return out
}

// serverUsages is usage for every server, in server order: a prompt is
// built every turn, and a derived usage reads the whole gate vocabulary.
func (v *View) serverUsages() []string {
	out := make([]string, len(v.servers))
	for i := range v.servers {
		out[i] = v.usage(&v.servers[i])
	}
	return out
}

// usage says in a few words what a server is for: the words of its usage
// card (its manual's or the owner's), else the first sentence of the
// instructions it sent, else what its tools say (see below).
func (v *View) usage(s *Server) string {
	if len(s.Card) > 0 {
		return Shorten(strings.Join(firstDistinct(s.Card, maxUsageTerms), ", "), maxUsageBytes)
	}
	if first := firstSentence(s.Instructions); first != "" {
		return Shorten(first, maxUsageBytes)
	}
	// A server of one tool is best described by what that tool says it
	// does; a larger one by what its tools are called, written as words,
	// by name: "Tools to download attachment, search emails, send email,
	// …". Plain words a model reads at a glance, not
	// the gate's stems and cross-language glosses.
	var first string
	var names []string
	for i := range v.caps {
		cp := &v.caps[i]
		if cp.Server != s.ID {
			continue
		}
		if first == "" && cp.Description != "" {
			first = firstSentence(cp.Description)
		}
		if n := toolWords(cp.Name); n != "" {
			names = append(names, n)
		}
	}
	if first != "" && v.srvTools[v.srvIdx[s.ID]] == 1 {
		return Shorten(first, maxUsageBytes)
	}
	if len(names) > 0 {
		return Shorten("Tools to "+strings.Join(firstDistinct(names, maxUsageTerms), ", "), maxUsageBytes)
	}
	return Shorten(cmp.Or(first, s.Title, s.ID), maxUsageBytes)
}

// toolWords writes a tool's name as words: "search_emails" and
// "searchEmails" are "search emails".
func toolWords(name string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ':
			b.WriteByte(' ')
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToLower(r))
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// firstDistinct returns up to n entries of list, each once, ignoring case.
func firstDistinct(list []string, n int) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range list {
		k := strings.ToLower(strings.TrimSpace(w))
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, strings.TrimSpace(w))
		if len(out) == n {
			break
		}
	}
	return out
}

// firstSentence is a text's first sentence on one line.
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return s
}

// Shorten puts s on one line of at most n bytes, cut at a word boundary
// with "…" when it is longer.
func Shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if sp := strings.LastIndexByte(s[:cut], ' '); sp > cut/2 {
		cut = sp
	}
	return strings.TrimRight(s[:cut], " ,;:") + "…"
}

// Requested returns the tools that asking for a service by name brings into
// a turn (C8): the granted tools of the connected servers the name stands
// for (a server's id, title or alias in any spelling, or the store plugin
// it belongs to), in server order. They are the tools the gate would have
// offered for those servers, so what the agent may not have (not granted,
// blocked, on the never-list, not connected) never comes this way. A
// server in the agent's focus brings nothing: its tools are always
// offered. The error, written for the model, says why a name brings
// nothing: no such service, not connected, or none of its tools granted.
func (pl *Plan) Requested(name string) ([]*Capability, error) {
	key := words.Key(name)
	if key == "" {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "name the service whose tools you want; the services you may use are listed in your instructions")
	}
	var out []*Capability
	found := false
	var why string
	for i := range pl.view.servers {
		s := &pl.view.servers[i]
		if !s.namedBy(key) {
			continue
		}
		found = true
		switch pl.srvState[i] {
		case srvGated:
			out = append(out, pl.gated[i]...)
		case srvOffline:
			why = s.ID + " is not connected now"
		case srvNone:
			why = "none of the tools of " + s.ID + " is available to you"
		}
	}
	switch {
	case len(out) > 0 || found && why == "":
		return out, nil
	case found:
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s", why)
	}
	return nil, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no connected service is named %q; the services you may use are listed in your instructions", name)
}

// RequestedOffline returns the servers a name stands for (as in Requested)
// that are not connected now but have a tool the agent may use: a runtime
// can wait for them while they start, then ask a new plan.
func (pl *Plan) RequestedOffline(name string) []string {
	key := words.Key(name)
	var out []string
	for i := range pl.view.servers {
		if s := &pl.view.servers[i]; key != "" && pl.srvState[i] == srvOffline && pl.grantedOffline[i] && s.namedBy(key) {
			out = append(out, s.ID)
		}
	}
	return out
}

// namedBy reports whether key (a name after words.Key) names the server:
// its id with or without "mcp"/"server", its title, an alias or its plugin.
func (s *Server) namedBy(key string) bool {
	for _, n := range append([]string{s.ID, trimMCPAffixes(s.ID), s.Title, s.Plugin}, s.Aliases...) {
		if n != "" && words.Key(n) == key {
			return true
		}
	}
	return false
}

// OnRequest returns the servers the agent may use that this turn did not
// offer: the model can still ask for them by name (C8), and `route` says so.
func (t *Turn) OnRequest() []string {
	pl := t.plan
	out := []string{}
	for i := range t.Decisions {
		if pl.srvState[i] == srvGated && !t.Decisions[i].Offered {
			out = append(out, t.Decisions[i].Server)
		}
	}
	return out
}
