package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jarvisbot/jarvisbot/app"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/internal/appkey"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/store"
)

const mcpUsage = `mcp add NAME [--env K=V]... [--header "K: V"]... [--timeout 30s] [--trusted] -- COMMAND [ARGS...]
       jarvisbot mcp add NAME URL [--header "K: V"]... [--sse] [--timeout 30s] [--trusted]
       jarvisbot mcp list [--check] [--json] | show NAME | on NAME | off NAME | prefer [--clear] NAME | remove NAME
       jarvisbot mcp forget NAME [WORD]   (the words the gate learned for NAME: one, or all)
       jarvisbot mcp call NAME TOOL ['{"arg": "value"}']
       jarvisbot mcp import FILE   (Claude Desktop, Claude Code, Cursor or VS Code mcp.json)
       jarvisbot mcp serve         (jarvisbot's own MCP surface over stdio, for an app; its key in JARVIS_APP_KEY)`

// listFlag collects a repeated flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ", ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// mcpFlags are the flags of `jarvisbot mcp`.
type mcpFlags struct {
	env, hdrs     listFlag
	timeout       *time.Duration
	trusted, sse  *bool
	check, asJSON *bool
	clear         *bool
}

// cmdMCP: the owner's MCP servers (M1).
func cmdMCP(ctx context.Context, a *cli, args []string) error {
	// Everything after "--" is the server's command line, verbatim: its
	// own flags are not ours.
	args, command := splitCommand(args)
	fs := newFlagSet(a, "mcp", mcpUsage)
	var f mcpFlags
	fs.Var(&f.env, "env", "add: an environment variable K=V for a stdio server (V may be ${SECRET}); repeatable")
	fs.Var(&f.hdrs, "header", `add: an HTTP header "K: V" (V may hold ${SECRET}); repeatable`)
	f.timeout = fs.Duration("timeout", 0, "add: deadline of every tool call (default 30s)")
	f.trusted = fs.Bool("trusted", false, "add: trust the server's annotations to lower tool tiers")
	f.sse = fs.Bool("sse", false, "add: the URL speaks only the older SSE transport")
	f.check = fs.Bool("check", false, "list: connect to every enabled server now and show whether it answers")
	f.asJSON = fs.Bool("json", false, "list: one JSON array")
	f.clear = fs.Bool("clear", false, "prefer: take the preference back")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fs.Usage()
		return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot %s", mcpUsage)
	}
	if pos[0] == "serve" {
		if len(pos) != 1 {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot mcp serve (the key in %s)", appkey.EnvKey)
		}
		return a.mcpServe(ctx) // opens no store: the running service answers
	}
	in, err := a.OpenInstallation(ctx)
	if err != nil {
		return err
	}
	defer in.Close()
	return mcpCmd{a: a, in: in}.run(ctx, pos, command, f)
}

// run runs one mcp subcommand.
func (m mcpCmd) run(ctx context.Context, pos, command []string, f mcpFlags) error {
	one := func() (string, error) {
		if len(pos) != 2 {
			return "", jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot mcp %s NAME", pos[0])
		}
		return pos[1], nil
	}
	switch pos[0] {
	case "add":
		s, err := serverToAdd(pos, command, f)
		if err != nil {
			return err
		}
		return m.add(ctx, s)
	case "list":
		return m.list(ctx, *f.check, *f.asJSON)
	case "call":
		if len(pos) < 3 || len(pos) > 4 {
			return jarvisbot.Errorf(jarvisbot.EINVALID, `usage: jarvisbot mcp call NAME TOOL ['{"arg": "value"}']`)
		}
		argJSON := "{}"
		if len(pos) == 4 {
			argJSON = pos[3]
		}
		return m.call(ctx, pos[1], pos[2], argJSON)
	case "show", "on", "off", "remove", "import":
		name, err := one()
		if err != nil {
			return err
		}
		return m.named(ctx, pos[0], name)
	case "prefer":
		name, err := one()
		if err != nil {
			return err
		}
		p, err := m.in.PreferServer(ctx, name, *f.clear)
		return printPreference(m.a.stdout, p, err)
	case "forget":
		if len(pos) < 2 || len(pos) > 3 {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot mcp forget NAME [WORD]")
		}
		word := ""
		if len(pos) == 3 {
			word = pos[2]
		}
		said, err := m.in.ForgetLearned(ctx, store.LearnedServer, pos[1], word)
		if err != nil {
			return err
		}
		fmt.Fprintln(m.a.stdout, said)
		return nil
	}
	return jarvisbot.Errorf(jarvisbot.EINVALID, "unknown mcp subcommand %q: use add, list, show, on, off, prefer, forget, remove or import", pos[0])
}

// named runs a subcommand that takes one name (or file).
func (m mcpCmd) named(ctx context.Context, sub, name string) error {
	switch sub {
	case "show":
		return m.show(ctx, name)
	case "on", "off":
		return m.switchServer(ctx, name, sub == "on")
	case "remove":
		return m.remove(ctx, name)
	}
	return m.importFile(ctx, name)
}

// serverToAdd is the server `mcp add` describes: a command line after
// "--" or a URL.
func serverToAdd(pos, command []string, f mcpFlags) (app.NewServer, error) {
	s := app.NewServer{Env: f.env, Headers: f.hdrs, Timeout: *f.timeout, Trusted: *f.trusted, SSE: *f.sse}
	switch {
	case len(pos) == 2 && len(command) > 0:
		s.Name, s.Command = pos[1], command
	case len(pos) == 3 && len(command) == 0:
		s.Name, s.URL = pos[1], pos[2]
	default:
		return s, jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot %s", mcpUsage)
	}
	return s, nil
}

// mcpCmd is one run of `jarvisbot mcp` on an installation.
type mcpCmd struct {
	a  *cli
	in *app.Installation
}

// showReaching says which server is being reached, on stderr, because a first
// npx start can take a while.
func (a *cli) showReaching(r app.Reaching) {
	fmt.Fprintf(a.Stderr, "Connecting to %s (%s)...\n", r.Name, r.Target)
}

// showWarnings prints what a use case says without failing.
func (a *cli) showWarnings(ws app.Warnings) {
	for _, w := range ws {
		fmt.Fprintf(a.Stderr, "jarvisbot: warning: %s\n", w)
	}
}

// report says what moved to the keyring and what was added.
func (m mcpCmd) report(c app.AddedServer, prefix string, tools bool) {
	for _, mv := range c.Moved {
		fmt.Fprintf(m.a.stdout, "  %s: moved the literal %s into the keyring as %s\n", c.Name, mv.What, mv.Ref)
	}
	fmt.Fprintf(m.a.stdout, "%sAdded %s (%s, %s): %d tools, switched on.\n", prefix, c.Name, c.Info, c.Transport, len(c.Tools))
	if !tools {
		return
	}
	for i, t := range c.Tools {
		if i == 10 {
			fmt.Fprintf(m.a.stdout, "  … and %d more (jarvisbot mcp show %s)\n", len(c.Tools)-10, c.Name)
			break
		}
		fmt.Fprintf(m.a.stdout, "  %s\n", t)
	}
}

// add checks that the server answers and lists its tools, then records it
// switched on.
func (m mcpCmd) add(ctx context.Context, s app.NewServer) error {
	c, warnings, err := m.in.AddServer(ctx, s, m.a.showReaching)
	m.a.showWarnings(warnings)
	if err != nil {
		return err
	}
	m.report(c, "", true)
	return nil
}

// switchServer turns a server on or off.
func (m mcpCmd) switchServer(ctx context.Context, name string, on bool) error {
	name, err := m.in.SwitchServer(ctx, name, on)
	if err != nil {
		return err
	}
	if !on {
		fmt.Fprintf(m.a.stdout, "%s is off: its settings are kept, its tools are no longer offered. Switch it back with: jarvisbot mcp on %s\n", mcphost.ShownName(name), mcphost.ShownName(name))
	} else {
		fmt.Fprintf(m.a.stdout, "%s is on: its tools are offered again while it answers.\n", mcphost.ShownName(name))
	}
	return nil
}

// remove forgets a server and says which of its secrets went with it.
func (m mcpCmd) remove(ctx context.Context, name string) error {
	r, err := m.in.RemoveServer(ctx, name)
	if r.Name == "" {
		return err
	}
	fmt.Fprintf(m.a.stdout, "Removed MCP server %s.\n", mcphost.ShownName(r.Name))
	if r.Unsure != nil {
		fmt.Fprintf(m.a.stdout, "Kept its secrets %s in the keyring: whether anything else refers to them cannot be told (%v). Delete each with jarvisbot secrets delete NAME once nothing needs it.\n", strings.Join(r.Secrets, ", "), r.Unsure)
	}
	for _, k := range r.Kept {
		fmt.Fprintf(m.a.stdout, "Kept its secret %s in the keyring: %s refers to it.\n", k.Name, k.By)
	}
	for _, n := range r.Deleted {
		fmt.Fprintf(m.a.stdout, "Deleted its secret %s from the keyring.\n", n)
	}
	return err
}

// call runs one tool as the owner, to try a server by hand.
func (m mcpCmd) call(ctx context.Context, name, tool, args string) error {
	res, err := m.in.CallTool(ctx, name, tool, args, m.a.showReaching)
	if err != nil {
		return err
	}
	fmt.Fprintln(m.a.stdout, res.Text)
	if res.IsError {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "tool %s/%s reported an error (above)", name, tool)
	}
	return nil
}

func (m mcpCmd) list(ctx context.Context, check, asJSON bool) error {
	rows, err := m.in.ListServers(ctx, check, m.a.showReaching)
	if err != nil {
		return err
	}
	if asJSON {
		b, err := json.Marshal(rows)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(m.a.stdout, "%s\n", b)
		return err
	}
	if len(rows) == 0 {
		fmt.Fprintln(m.a.stdout, "No MCP servers yet. Add one with: jarvisbot mcp add NAME -- COMMAND ARGS…  or  jarvisbot mcp add NAME URL")
		return nil
	}
	tw := tabwriter.NewWriter(m.a.stdout, 2, 4, 2, ' ', 0)
	for _, r := range rows {
		state := "on"
		if !r.Enabled {
			state = "off"
		}
		if r.Status != "" {
			state += ", " + r.Status
		}
		if r.Problem != "" {
			state += ", needs attention"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d tools\t%s\t%s\n", mcphost.ShownName(r.Name), state, r.Tools, r.Transport, visible.Line(r.Target))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rows {
		if r.Problem != "" {
			fmt.Fprintf(m.a.stdout, "%s needs attention: %s.\n", mcphost.ShownName(r.Name), r.Problem)
		}
	}
	return nil
}

func (m mcpCmd) show(ctx context.Context, name string) error {
	d, err := m.in.ShowServer(ctx, name)
	if err != nil {
		return err
	}
	w := m.a.stdout
	fmt.Fprint(w, d.Settings.Text())
	learned, err := m.in.LearnedWords(ctx, store.LearnedServer, name)
	if err != nil {
		return err
	}
	if text := app.LearnedText(learned, m.in.Config.Location()); text != "" {
		fmt.Fprintf(w, "%s (jarvisbot mcp forget %s [WORD] removes them)\n", text, name)
	}
	switch {
	case d.ToolsErr == nil:
	case d.Listed < 0:
		fmt.Fprintf(w, "\nIts cached tool list cannot be read: jarvisbot mcp list --check lists its tools again.\n")
		return nil
	default:
		fmt.Fprintf(w, "\n%d tools (as last listed), which the catalog refuses (%v): jarvisbot mcp list --check lists its tools again.\n", d.Listed, d.ToolsErr)
		return nil
	}
	fmt.Fprintf(w, "\n%d tools (as last listed):\n", d.Listed)
	for _, t := range d.Tools {
		fmt.Fprintf(w, "  %-40s %-7s %s\n", t.ID, t.Tier, visible.Line(t.Description))
	}
	return nil
}

// importFile adds every server of an mcp.json written for another app, or
// none of them.
func (m mcpCmd) importFile(ctx context.Context, file string) error {
	res, warnings, err := m.in.ImportServers(ctx, file, m.a.showReaching)
	for _, r := range res.Refused {
		fmt.Fprintf(m.a.stdout, "✗ %s: %v\n", r.Name, r.Err)
	}
	m.a.showWarnings(warnings)
	if err != nil {
		return err
	}
	for _, c := range res.Added {
		m.report(c, "✓ ", false)
	}
	fmt.Fprintf(m.a.stdout, "Imported %d of %d servers from %s.\n", len(res.Added), res.Total, file)
	return nil
}
