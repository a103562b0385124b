package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/web"
)

// webMCPs is the dashboard's MCPs tab over this session: every change
// runs the `mcp` command's code (mcpCmd) on the service's store, its words
// written into a buffer for the page to show, and then brings the running
// host in step, which is also what says whether a server answers.
func (a *cli) webMCPs(cfg config.Config, s *app.Session) web.MCPs {
	return webMCPs{a: a, cfg: cfg, s: s}
}

type webMCPs struct {
	a   *cli
	cfg config.Config
	s   *app.Session
}

// cmd is the mcp command writing to out (stdout) and warn (stderr).
func (w webMCPs) cmd(out, warn io.Writer) mcpCmd {
	a := *w.a
	a.stdin, a.stdout, a.Stderr = nil, out, warn
	return mcpCmd{a: &a, cfg: w.cfg, db: w.s.DB}
}

// run runs one change of the command and returns its words; its warnings
// ("jarvisbot: warning: …") follow them, its progress lines do not.
func (w webMCPs) run(f func(m mcpCmd) error) (string, error) {
	var out, warn bytes.Buffer
	err := f(w.cmd(&out, &warn))
	words := strings.TrimSpace(out.String())
	for _, line := range strings.Split(warn.String(), "\n") {
		if strings.HasPrefix(line, "jarvisbot: warning: ") {
			words += "\n" + strings.TrimPrefix(line, "jarvisbot: ")
		}
	}
	return strings.TrimSpace(words), err
}

// follow brings the host in step with the stored server: supervised
// while it is on, stopped when it is off or gone.
func (w webMCPs) follow(ctx context.Context, name string) {
	stored, err := w.s.DB.MCPServer(ctx, name)
	if err != nil || !stored.Enabled {
		w.s.Host.Stop(name)
		return
	}
	if err := w.s.Host.Start(w.s.Work, w.s.HostServer(stored)); err != nil {
		w.s.Log.Warn("MCP server not started", "server", name, "err", err)
	}
}

// answers is what the running host says of each server it supervises,
// by name: no server is reached for a page view.
func (w webMCPs) answers() map[string]mcphost.Status {
	out := map[string]mcphost.Status{}
	for _, st := range w.s.Host.Status() {
		out[st.Name] = st
	}
	return out
}

func (w webMCPs) List(ctx context.Context) ([]web.MCPRow, error) {
	rows, err := w.cmd(io.Discard, io.Discard).rows(ctx, false)
	if err != nil {
		return nil, err
	}
	live := w.answers()
	out := make([]web.MCPRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, w.row(ctx, r, live))
	}
	return out, nil
}

// row is one server as listed, with what the host says of it.
func (w webMCPs) row(ctx context.Context, r mcpRow, live map[string]mcphost.Status) web.MCPRow {
	row := web.MCPRow{Name: r.Name, Transport: r.Transport, Target: r.Target, On: r.Enabled, Tools: r.Tools, Problem: r.Problem}
	if !r.Enabled {
		return row
	}
	st, ok := live[r.Name]
	switch {
	case !ok:
		row.Answer = "not started in this process (restart jarvisbot serve, or switch it off and on)"
	case st.State == mcphost.StateUp:
		row.Answer, row.Up, row.Tools = "up", true, st.Tools
	case st.Err != nil:
		why := st.Err.Error()
		if s, err := w.s.DB.MCPServer(ctx, r.Name); err == nil {
			why = mcphost.RedactText(s, why)
		}
		row.Answer = string(st.State) + ": " + why
	default:
		row.Answer = string(st.State)
	}
	return row
}

func (w webMCPs) Show(ctx context.Context, name string) (web.MCPDetail, error) {
	m := w.cmd(io.Discard, io.Discard)
	stored, err := m.find(ctx, name)
	if err != nil {
		return web.MCPDetail{}, err
	}
	rows, err := m.rows(ctx, false)
	if err != nil {
		return web.MCPDetail{}, err
	}
	var d web.MCPDetail
	for _, r := range rows {
		if r.Name == stored.Name {
			d.MCPRow = w.row(ctx, r, w.answers())
		}
	}
	var settings bytes.Buffer
	showSettings(&settings, stored)
	d.Settings = settings.String()

	// Tiers as agents get them: the live catalog's (the owner's overrides
	// included) where it holds the tool, else as the command shows them.
	v := w.s.Catalog.View()
	caps, n, err := toolsOf(stored)
	switch {
	case err != nil && n < 0:
		d.ToolsNote = "Its cached tool list cannot be read: switching it off and on lists its tools again."
	case err != nil:
		d.ToolsNote = fmt.Sprintf("%d tools (as last listed), which the catalog refuses (%v).", n, err)
	case n == 0:
		d.ToolsNote = "It listed no tools."
	}
	for _, cp := range caps {
		if live, ok := v.Capability(cp.ID); ok {
			cp = *live
		}
		d.Tools = append(d.Tools, web.MCPTool{ID: cp.ID, Tier: string(cp.Tier), Description: firstSentence(cp.Description)})
	}

	own, err := w.s.DB.MCPCards(ctx)
	if err != nil {
		return web.MCPDetail{}, err
	}
	d.Owned = len(own[stored.Name]) > 0
	if len(w.cfg.MCP[stored.Name].Card) > 0 {
		d.Locked = w.cfg.Path
	}
	srv, ok := v.Server(stored.Name)
	switch {
	case !ok:
		d.Card = own[stored.Name]
		d.CardFrom = "It is not in the catalog now (off, or not answering): its words are listed once it is."
	case d.Locked != "":
		d.Card, d.CardFrom = srv.Card, "Its card comes from the config."
	case d.Owned:
		d.Card, d.CardFrom = srv.Card, "Its card is yours, saved here; it replaces the one derived from its tools."
	case len(srv.Card) > 0:
		d.Card, d.CardFrom = srv.Card, "Its card comes from its plugin's manual."
	default:
		d.CardFrom = "It has no card of its own: the words below are derived from its tools' names and descriptions and the instructions it sent."
	}
	if ok {
		for _, e := range v.Gate().Vocabulary(srv.ID) {
			d.Words = append(d.Words, web.MCPWord{Word: e.Word, Kind: e.Kind.String(), Source: e.Source, Weight: e.Weight})
		}
	}
	return d, nil
}

func (w webMCPs) Add(ctx context.Context, in web.MCPAdd) (string, error) {
	pos, command, f, err := mcpAddArgs(in)
	if err != nil {
		return "", err
	}
	words, err := w.run(func(m mcpCmd) error { return m.run(ctx, pos, command, f) })
	if err != nil {
		return "", err
	}
	w.follow(ctx, in.Name)
	return words, nil
}

// mcpAddArgs turns the add form into the command line `mcp add` parses.
func mcpAddArgs(in web.MCPAdd) (pos, command []string, f mcpFlags, err error) {
	var timeout time.Duration
	if in.Timeout != "" {
		if timeout, err = time.ParseDuration(in.Timeout); err != nil || timeout < 0 {
			return nil, nil, f, jarvisbot.Errorf(jarvisbot.EINVALID, "--timeout %q: write a duration such as 30s or 2m", in.Timeout)
		}
	}
	trusted, sse, no := in.Trusted, in.SSE, false
	f = mcpFlags{timeout: &timeout, trusted: &trusted, sse: &sse, check: &no, asJSON: &no, clear: &no}
	f.env, f.hdrs = lines(in.Env), lines(in.Headers)
	if in.Name == "" {
		return nil, nil, f, jarvisbot.Errorf(jarvisbot.EINVALID, "name the server (a short name such as github)")
	}
	switch {
	case in.Command != "" && in.URL != "":
		return nil, nil, f, jarvisbot.Errorf(jarvisbot.EINVALID, "give a command line or a URL, not both")
	case in.Command != "":
		command, err = splitCommandLine(in.Command)
		return []string{"add", in.Name}, command, f, err
	case in.URL != "":
		return []string{"add", in.Name, in.URL}, nil, f, nil
	}
	return nil, nil, f, jarvisbot.Errorf(jarvisbot.EINVALID, "give the command line of a local server or the URL of a remote one")
}

// lines are a text area's non-empty lines.
func lines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// splitCommandLine splits a command line as a shell would split plain
// words: spaces separate arguments, single and double quotes keep them
// together, a backslash takes the next character as it is. Nothing is
// expanded: the server is started without a shell.
func splitCommandLine(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case r == '\\' && quote != '\'':
			escaped, inWord = true, true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 || escaped {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "the command line %q ends inside a quote or after a backslash: close the quote", s)
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

func (w webMCPs) Switch(ctx context.Context, name string, on bool) (string, error) {
	var stored string
	words, err := w.run(func(m mcpCmd) error {
		s, err := m.find(ctx, name)
		if err != nil {
			return err
		}
		stored = s.Name
		return m.switchServer(ctx, s.Name, on)
	})
	if err != nil {
		return "", err
	}
	w.follow(ctx, stored)
	return words, nil
}

func (w webMCPs) Remove(ctx context.Context, name string) (string, error) {
	var stored string
	words, err := w.run(func(m mcpCmd) error {
		s, err := m.find(ctx, name)
		if err != nil {
			return err
		}
		stored = s.Name
		return m.remove(ctx, s.Name)
	})
	if err != nil {
		return "", err
	}
	w.follow(ctx, stored)
	return words, nil
}

// SaveCard keeps the owner's card in the store, where every command's
// catalog reads it too (route, catalog card), and gives it to the running
// catalog at once. A card in the config wins, so it is edited there.
func (w webMCPs) SaveCard(ctx context.Context, name string, words []string) (string, error) {
	stored, err := w.cmd(io.Discard, io.Discard).find(ctx, name)
	if err != nil {
		return "", err
	}
	name = stored.Name
	if len(w.cfg.MCP[name].Card) > 0 {
		return "", jarvisbot.Errorf(jarvisbot.ECONFLICT, "the config %s sets the usage card of %s (mcp.%s.card), which replaces any other: edit it there", w.cfg.Path, mcphost.ShownName(name), name)
	}
	if err := w.s.DB.SetMCPCard(ctx, name, words); err != nil {
		return "", err
	}
	card := words
	if len(card) == 0 && stored.Plugin != "" {
		if all, err := collection.Load(w.cfg.DataDir, io.Discard); err == nil {
			if p, ok := all[stored.Plugin]; ok {
				card = p.Card() // its manual's words again
			}
		}
	}
	err = w.s.Catalog.UpdateServer(name, func(srv *catalog.Server) { srv.Card = card })
	if err != nil && jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		return "", err
	}
	if len(words) == 0 {
		return fmt.Sprintf("%s has no card of yours now: its words are derived again.", mcphost.ShownName(name)), nil
	}
	return fmt.Sprintf("Saved your usage card of %s: %s.", mcphost.ShownName(name), strings.Join(words, ", ")), nil
}
