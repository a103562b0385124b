package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/store"
)

// What the owner reads of the MCP servers (M1, C5, C7): the list, one
// server's settings and tools, and its usage card.

// ServerRow is one stored server as listed; it is also one element of
// `mcp list --json`.
type ServerRow struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	Target    string `json:"target"`
	Enabled   bool   `json:"enabled"`
	Trusted   bool   `json:"trusted"`
	Tools     int    `json:"tools"`
	Status    string `json:"status,omitempty"`  // with a check: "up" or why not
	Problem   string `json:"problem,omitempty"` // why it cannot run as stored
	// Running is what the running service's host says of a server that
	// is on; nil outside serve and for a server that is off.
	Running *Running `json:"-"`
}

// Running is where the running host stands with a server.
type Running struct {
	// Started says the host supervises it; a server switched on by
	// another process is not started in this one.
	Started bool
	State   mcphost.State
	Tools   int
	Why     string // why it is not up, its secrets left out
}

// rowOf is a stored server as listed, from what is stored of it.
func rowOf(s store.MCPServer) ServerRow {
	r := ServerRow{Name: s.Name, Transport: s.Transport, Target: mcphost.Target(s), Enabled: s.Enabled, Trusted: s.Trusted, Problem: mcphost.Trouble(s, true)}
	var tools []json.RawMessage
	if json.Unmarshal([]byte(s.Tools), &tools) == nil {
		r.Tools = len(tools)
	}
	return r
}

// ListServers lists the stored servers. With check, every enabled one is
// reached now and its tools listed again (and cached); inside serve,
// each row says what the running host says of it, and no server is
// reached for that.
func (in *Installation) ListServers(ctx context.Context, check bool, reaching func(Reaching)) ([]ServerRow, error) {
	list, err := in.DB.MCPServers(ctx)
	if err != nil {
		return nil, err
	}
	live := in.answers()
	rows := make([]ServerRow, 0, len(list))
	for _, s := range list {
		r := rowOf(s)
		if check && s.Enabled {
			if r, err = in.check(ctx, s, r, reaching); err != nil {
				return nil, err
			}
		}
		r.Running = running(s, live)
		rows = append(rows, r)
	}
	return rows, nil
}

// check reaches a server now and caches the tools it lists.
func (in *Installation) check(ctx context.Context, s store.MCPServer, r ServerRow, reaching func(Reaching)) (ServerRow, error) {
	tell(reaching, s)
	cn, err := in.dial(ctx, s)
	if err != nil {
		r.Status = mcphost.RedactText(s, err.Error())
		return r, nil
	}
	r.Status, r.Tools = "up", len(cn.Tools())
	tools := mcphost.ToolsJSON(cn.Tools())
	s.Tools = string(tools)
	cn.Close()
	if err := in.DB.SetMCPServerTools(ctx, s.Name, tools); err != nil {
		return r, err
	}
	r.Problem = mcphost.Trouble(s, true) // the tools listed now replace the cached ones
	return r, nil
}

// answers is what the running host says of each server it supervises, by
// name; nil outside serve.
func (in *Installation) answers() map[string]mcphost.Status {
	if in.Live == nil || in.Live.Host == nil {
		return nil
	}
	out := map[string]mcphost.Status{}
	for _, st := range in.Live.Host.Status() {
		out[st.Name] = st
	}
	return out
}

// running is what live says of s, when s is on and there is a host.
func running(s store.MCPServer, live map[string]mcphost.Status) *Running {
	if live == nil || !s.Enabled {
		return nil
	}
	st, ok := live[s.Name]
	if !ok {
		return &Running{}
	}
	r := &Running{Started: true, State: st.State, Tools: st.Tools}
	if st.Err != nil && st.State != mcphost.StateUp {
		r.Why = mcphost.RedactText(s, st.Err.Error())
	}
	return r
}

// ServerDetail is one stored server: how it is reached, its tools as last
// listed with their tiers, and, inside serve, its usage card.
type ServerDetail struct {
	ServerRow
	Settings ServerSettings
	// Tools are the tools as last listed, with the tiers agents get: the
	// live catalog's (the owner's overrides included) inside serve.
	Tools []ServerTool
	// Listed is how many tools it listed; -1 when the cached list cannot
	// be read (ToolsErr says why), and ToolsErr says why the catalog
	// refuses them when it can.
	Listed   int
	ToolsErr error
	// Card is filled inside serve, where the catalog runs.
	Card ServerCard
}

// ServerTool is one tool with its tier; Description is its first
// sentence, for one line of a list.
type ServerTool struct {
	ID, Tier, Description string
}

// ShowServer is one stored server by the name the owner typed.
func (in *Installation) ShowServer(ctx context.Context, name string) (ServerDetail, error) {
	stored, err := in.FindServer(ctx, name)
	if err != nil {
		return ServerDetail{}, err
	}
	d := ServerDetail{ServerRow: rowOf(stored), Settings: settingsOf(stored)}
	d.Running = running(stored, in.answers())
	caps, n, err := toolsOf(stored)
	d.Listed, d.ToolsErr = n, err
	var v *catalog.View
	if in.Live != nil {
		v = in.Live.Catalog.View()
	}
	for _, cp := range caps {
		if v != nil {
			if live, ok := v.Capability(cp.ID); ok {
				cp = *live
			}
		}
		d.Tools = append(d.Tools, ServerTool{ID: cp.ID, Tier: string(cp.Tier), Description: FirstSentence(cp.Description)})
	}
	if v != nil {
		if d.Card, err = in.cardOf(ctx, v, stored.Name); err != nil {
			return ServerDetail{}, err
		}
	}
	return d, nil
}

// toolsOf are a stored server's tools as last listed, with the tiers the
// catalog gives them, and how many were listed; n is -1 when the cached
// list cannot be read, and an error says the catalog refuses them.
func toolsOf(s store.MCPServer) (caps []catalog.Capability, n int, err error) {
	tools, err := catalog.ReadStoredList(s.Tools)
	if err != nil {
		return nil, -1, err
	}
	c := catalog.New()
	if err := c.SetServer(catalog.Server{ID: s.Name, Trusted: s.Trusted, Connected: true}, tools); err != nil {
		return nil, len(tools), err
	}
	return c.View().Capabilities(), len(tools), nil
}

// FirstSentence is a tool's description cut to its first sentence and 80
// characters, for one line of a list.
func FirstSentence(desc string) string {
	if i := strings.IndexAny(desc, ".\n"); i > 0 {
		desc = desc[:i]
	}
	if r := []rune(desc); len(r) > 80 { // never cut a letter in two
		desc = string(r[:77]) + "..."
	}
	return desc
}

// ServerSettings are how a stored server is reached, its secrets
// redacted, and what keeps it from running.
type ServerSettings struct {
	Server  store.MCPServer // redacted
	Target  string          // its command line or URL
	Problem string
}

func settingsOf(stored store.MCPServer) ServerSettings {
	return ServerSettings{Server: mcphost.Redacted(stored), Target: mcphost.Target(stored), Problem: mcphost.Trouble(stored, false)}
}

// Text is the settings in the words `mcp show` prints and the
// dashboard's server page shows, a line each.
func (st ServerSettings) Text() string {
	var w strings.Builder
	s := st.Server
	state := "on"
	if !s.Enabled {
		state = "off (settings kept, tools not offered)"
	}
	fmt.Fprintf(&w, "%s: %s, %s\n", mcphost.ShownName(s.Name), state, s.Transport)
	if s.Transport == mcphost.Stdio {
		fmt.Fprintf(&w, "command: %s\n", visible.Line(st.Target))
	} else {
		fmt.Fprintf(&w, "url:     %s\n", visible.Line(st.Target))
	}
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		fmt.Fprintf(&w, "env:     %s=%s\n", visible.Line(k), visible.Line(s.Env[k]))
	}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		fmt.Fprintf(&w, "header:  %s: %s\n", visible.Line(k), visible.Line(s.Headers[k]))
	}
	timeout := s.Timeout
	if timeout == 0 {
		timeout = mcphost.DefaultCallTimeout
	}
	fmt.Fprintf(&w, "timeout: %s per call; trusted annotations: %v\n", timeout, s.Trusted)
	if st.Problem != "" {
		fmt.Fprintf(&w, "problem: %s\n", st.Problem)
	}
	return w.String()
}

// CardFrom says where the usage card in force comes from.
type CardFrom int

const (
	CardOffCatalog CardFrom = iota // the server is not in the catalog now (off, or not answering)
	CardConfig                     // the config's mcp.NAME.card
	CardOwner                      // the owner's own, saved in the store
	CardManual                     // its plugin's manual
	CardDerived                    // none: the words come from its tools and instructions
)

// ServerCard is a server's usage card and what route matches for it (C5,
// C7).
type ServerCard struct {
	Words []string
	From  CardFrom
	// Owned says the owner saved a card of their own.
	Owned bool
	// Locked names the config file whose card replaces any other; the
	// card is edited there.
	Locked string
	// Vocabulary is what route matches for the server, with why; empty
	// while it is not in the catalog.
	Vocabulary []catalog.Evidence
}

// cardOf is a server's card as the catalog v holds it.
func (in *Installation) cardOf(ctx context.Context, v *catalog.View, name string) (ServerCard, error) {
	own, err := in.DB.MCPCards(ctx)
	if err != nil {
		return ServerCard{}, err
	}
	c := ServerCard{Owned: len(own[name]) > 0}
	if len(in.Config.MCP[name].Card) > 0 {
		c.Locked = in.Config.Path
	}
	srv, ok := v.Server(name)
	switch {
	case !ok:
		return ServerCard{Words: own[name], From: CardOffCatalog, Owned: c.Owned, Locked: c.Locked}, nil
	case c.Locked != "":
		c.Words, c.From = srv.Card, CardConfig
	case c.Owned:
		c.Words, c.From = srv.Card, CardOwner
	case len(srv.Card) > 0:
		c.Words, c.From = srv.Card, CardManual
	default:
		c.From = CardDerived
	}
	c.Vocabulary = v.Gate().Vocabulary(srv.ID)
	return c, nil
}

// SaveCard keeps the owner's usage card of a server in the store, where
// every command's catalog reads it too (route, catalog card), and inside
// serve gives it to the running catalog at once; no words takes the
// owner's card back. A card in the config wins, so it is edited there.
// It returns the server's stored name.
func (in *Installation) SaveCard(ctx context.Context, name string, words []string) (string, error) {
	stored, err := in.FindServer(ctx, name)
	if err != nil {
		return "", err
	}
	name = stored.Name
	if len(in.Config.MCP[name].Card) > 0 {
		return "", jarvisbot.Errorf(jarvisbot.ECONFLICT, "the config %s sets the usage card of %s (mcp.%s.card), which replaces any other: edit it there", in.Config.Path, mcphost.ShownName(name), name)
	}
	if err := in.DB.SetMCPCard(ctx, name, words); err != nil {
		return "", err
	}
	if in.Live == nil {
		return name, nil
	}
	card := words
	if len(card) == 0 && stored.Plugin != "" {
		if all, err := collection.Load(in.Config.DataDir, io.Discard); err == nil {
			if p, ok := all[stored.Plugin]; ok {
				card = p.Card() // its manual's words again
			}
		}
	}
	err = in.Live.Catalog.UpdateServer(name, func(srv *catalog.Server) { srv.Card = card })
	if err != nil && jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		return "", err
	}
	return name, nil
}
