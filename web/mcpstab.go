package web

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/store"
)

// MCPsTab is the MCPs tab over the running service's installation
// (app.Service.Installation): every change is the app's use case, which
// also brings the running host in step, and the host says whether a
// server answers. The notes are in the words `jarvisbot mcp` prints.
func MCPsTab(in *app.Installation) MCPs {
	return mcpsTab{in}
}

type mcpsTab struct {
	in *app.Installation
}

func (t mcpsTab) List(ctx context.Context) ([]MCPRow, error) {
	rows, err := t.in.ListServers(ctx, false, nil)
	if err != nil {
		return nil, err
	}
	out := make([]MCPRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, mcpRowOf(r))
	}
	return out, nil
}

// mcpRowOf is one server as listed, with what the host says of it.
func mcpRowOf(r app.ServerRow) MCPRow {
	row := MCPRow{Name: r.Name, Transport: r.Transport, Target: r.Target, On: r.Enabled, Tools: r.Tools, Problem: r.Problem}
	st := r.Running
	switch {
	case !r.Enabled || st == nil:
	case !st.Started:
		row.Answer = "not started in this process (restart jarvisbot serve, or switch it off and on)"
	case st.State == mcphost.StateUp:
		row.Answer, row.Up, row.Tools = "up", true, st.Tools
	case st.State == mcphost.StateIdle:
		row.Answer = "idle: starts when a request needs it (its tools are offered as last listed)"
	case st.Why != "":
		row.Answer = string(st.State) + ": " + st.Why
	default:
		row.Answer = string(st.State)
	}
	return row
}

func (t mcpsTab) Show(ctx context.Context, name string) (MCPDetail, error) {
	s, err := t.in.ShowServer(ctx, name)
	if err != nil {
		return MCPDetail{}, err
	}
	d := MCPDetail{MCPRow: mcpRowOf(s.ServerRow), Settings: s.Settings.Text()}
	switch {
	case s.ToolsErr != nil && s.Listed < 0:
		d.ToolsNote = "Its cached tool list cannot be read: switching it off and on lists its tools again."
	case s.ToolsErr != nil:
		d.ToolsNote = fmt.Sprintf("%d tools (as last listed), which the catalog refuses (%v).", s.Listed, s.ToolsErr)
	case s.Listed == 0:
		d.ToolsNote = "It listed no tools."
	}
	for _, tool := range s.Tools {
		d.Tools = append(d.Tools, MCPTool{ID: tool.ID, Tier: tool.Tier, Description: tool.Description})
	}
	d.Card, d.Owned, d.Locked = s.Card.Words, s.Card.Owned, s.Card.Locked
	d.CardFrom = cardFrom[s.Card.From]
	for _, e := range s.Card.Vocabulary {
		d.Words = append(d.Words, MCPWord{Word: e.Word, Kind: e.Kind.String(), Source: e.Source, Weight: e.Weight})
	}
	learned, err := t.in.LearnedWords(ctx, store.LearnedServer, name)
	if err != nil {
		return MCPDetail{}, err
	}
	for _, l := range learned {
		d.Learned = append(d.Learned, MCPLearned{Word: l.Label, Note: app.LearnedNote(l, t.in.Config.Location())})
	}
	return d, nil
}

func (t mcpsTab) Forget(ctx context.Context, name, word string) (string, error) {
	return t.in.ForgetLearned(ctx, store.LearnedServer, name, word)
}

// cardFrom says where a server's card comes from.
var cardFrom = map[app.CardFrom]string{
	app.CardOffCatalog: "It is not in the catalog now (off, or not answering): its words are listed once it is.",
	app.CardConfig:     "Its card comes from the config.",
	app.CardOwner:      "Its card is yours, saved here; it replaces the one derived from its tools.",
	app.CardManual:     "Its card comes from its plugin's manual.",
	app.CardDerived:    "It has no card of its own: the words below are derived from its tools' names and descriptions and the instructions it sent.",
}

func (t mcpsTab) Add(ctx context.Context, in MCPAdd) (string, error) {
	s, err := newServer(in)
	if err != nil {
		return "", err
	}
	c, warnings, err := t.in.AddServer(ctx, s, nil)
	if err != nil {
		return "", err
	}
	var note strings.Builder
	for _, mv := range c.Moved {
		fmt.Fprintf(&note, "  %s: moved the literal %s into the keyring as %s\n", c.Name, mv.What, mv.Ref)
	}
	fmt.Fprintf(&note, "Added %s (%s, %s): %d tools, switched on.\n", c.Name, c.Info, c.Transport, len(c.Tools))
	for i, tool := range c.Tools {
		if i == 10 {
			fmt.Fprintf(&note, "  … and %d more (jarvisbot mcp show %s)\n", len(c.Tools)-10, c.Name)
			break
		}
		fmt.Fprintf(&note, "  %s\n", tool)
	}
	words := strings.TrimSpace(note.String())
	for _, w := range warnings {
		words += "\nwarning: " + w
	}
	return strings.TrimSpace(words), nil
}

// newServer is the add form as the server it describes.
func newServer(in MCPAdd) (app.NewServer, error) {
	s := app.NewServer{Name: in.Name, URL: in.URL, SSE: in.SSE, Trusted: in.Trusted, Env: lines(in.Env), Headers: lines(in.Headers)}
	if in.Timeout != "" {
		var err error
		if s.Timeout, err = time.ParseDuration(in.Timeout); err != nil || s.Timeout < 0 {
			return s, jarvisbot.Errorf(jarvisbot.EINVALID, "--timeout %q: write a duration such as 30s or 2m", in.Timeout)
		}
	}
	if in.Name == "" {
		return s, jarvisbot.Errorf(jarvisbot.EINVALID, "name the server (a short name such as github)")
	}
	switch {
	case in.Command != "" && in.URL != "":
		return s, jarvisbot.Errorf(jarvisbot.EINVALID, "give a command line or a URL, not both")
	case in.Command != "":
		var err error
		s.Command, err = splitCommandLine(in.Command)
		return s, err
	case in.URL != "":
		return s, nil
	}
	return s, jarvisbot.Errorf(jarvisbot.EINVALID, "give the command line of a local server or the URL of a remote one")
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

func (t mcpsTab) Switch(ctx context.Context, name string, on bool) (string, error) {
	name, err := t.in.SwitchServer(ctx, name, on)
	if err != nil {
		return "", err
	}
	shown := mcphost.ShownName(name)
	if !on {
		return fmt.Sprintf("%s is off: its settings are kept, its tools are no longer offered. Switch it back with: jarvisbot mcp on %s", shown, shown), nil
	}
	return fmt.Sprintf("%s is on: its tools are offered again while it answers.", shown), nil
}

func (t mcpsTab) Remove(ctx context.Context, name string) (string, error) {
	r, err := t.in.RemoveServer(ctx, name)
	if err != nil {
		return "", err
	}
	words := []string{fmt.Sprintf("Removed MCP server %s.", mcphost.ShownName(r.Name))}
	if r.Unsure != nil {
		words = append(words, fmt.Sprintf("Kept its secrets %s in the keyring: whether anything else refers to them cannot be told (%v). Delete each with jarvisbot secrets delete NAME once nothing needs it.", strings.Join(r.Secrets, ", "), r.Unsure))
	}
	for _, k := range r.Kept {
		words = append(words, fmt.Sprintf("Kept its secret %s in the keyring: %s refers to it.", k.Name, k.By))
	}
	for _, n := range r.Deleted {
		words = append(words, fmt.Sprintf("Deleted its secret %s from the keyring.", n))
	}
	return strings.Join(words, "\n"), nil
}

func (t mcpsTab) SaveCard(ctx context.Context, name string, words []string) (string, error) {
	name, err := t.in.SaveCard(ctx, name, words)
	if err != nil {
		return "", err
	}
	if len(words) == 0 {
		return fmt.Sprintf("%s has no card of yours now: its words are derived again.", mcphost.ShownName(name)), nil
	}
	return fmt.Sprintf("Saved your usage card of %s: %s.", mcphost.ShownName(name), strings.Join(words, ", ")), nil
}
