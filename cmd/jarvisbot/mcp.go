package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/secretref"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/mcp/apps"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/secrets"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

const mcpUsage = `mcp add NAME [--env K=V]... [--header "K: V"]... [--timeout 30s] [--trusted] -- COMMAND [ARGS...]
       jarvisbot mcp add NAME URL [--header "K: V"]... [--sse] [--timeout 30s] [--trusted]
       jarvisbot mcp list [--check] [--json] | show NAME | on NAME | off NAME | prefer [--clear] NAME | remove NAME
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
func cmdMCP(ctx context.Context, a *app, args []string) error {
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
			return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot mcp serve (the key in %s)", apps.EnvKey)
		}
		return a.mcpServe(ctx) // opens no store: the running service answers
	}
	cfg, db, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	return mcpCmd{a: a, cfg: cfg, db: db}.run(ctx, pos, command, f)
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
		if _, err := m.db.MCPServer(ctx, name); err != nil {
			return err
		}
		return preferService(ctx, m.a.stdout, m.db, "mcp", name, *f.clear)
	}
	return jarvisbot.Errorf(jarvisbot.EINVALID, "unknown mcp subcommand %q: use add, list, show, on, off, prefer, remove or import", pos[0])
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
func serverToAdd(pos, command []string, f mcpFlags) (store.MCPServer, error) {
	s := store.MCPServer{Timeout: *f.timeout, Trusted: *f.trusted, Enabled: true}
	switch {
	case len(pos) == 2 && len(command) > 0:
		s.Name, s.Transport, s.Command, s.Args = pos[1], mcphost.Stdio, command[0], command[1:]
	case len(pos) == 3 && len(command) == 0:
		s.Name, s.Transport, s.URL = pos[1], mcphost.StreamableHTTP, pos[2]
		if *f.sse {
			s.Transport = mcphost.SSE
		}
	default:
		return s, jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot %s", mcpUsage)
	}
	var err error
	if s.Env, err = keyValues(f.env, "=", "--env"); err != nil {
		return s, err
	}
	if s.Headers, err = keyValues(f.hdrs, ":", "--header"); err != nil {
		return s, err
	}
	if s.Transport != mcphost.Stdio && len(s.Env) > 0 {
		return s, jarvisbot.Errorf(jarvisbot.EINVALID, "--env is for stdio servers; an HTTP server takes --header")
	}
	return s, nil
}

type mcpCmd struct {
	a   *app
	cfg config.Config
	db  *sqlstore.DB
}

// keyValues parses K=V (or "K: V") pairs.
func keyValues(list []string, sep, flagName string) (map[string]string, error) {
	if len(list) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, sep)
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			if secretref.LiteralSecret(k, kv) {
				kv = "***" // a credential typed without its key is still one
			}
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "%s %q: write it as KEY%sVALUE", flagName, kv, sep)
		}
		out[k] = v
	}
	return out, nil
}

// dialStored connects to a stored server to check it, with progress on
// stderr because a first npx start can take a while.
func (m mcpCmd) dialStored(ctx context.Context, s store.MCPServer) (*mcphost.Conn, error) {
	m.progress(s)
	return m.dial(ctx, s)
}

// progress says which server is being reached; the caller prints it, so
// that concurrent dials never write at once.
func (m mcpCmd) progress(s store.MCPServer) {
	fmt.Fprintf(m.a.stderr, "Connecting to %s (%s)...\n", mcphost.ShownName(s.Name), mcphost.Target(s))
}

// dial connects to a stored server without a word; safe to run at once
// for several servers. A plugin's server that signs in is reached through
// its sign-in (signin.Manager.Dial).
func (m mcpCmd) dial(ctx context.Context, s store.MCPServer) (*mcphost.Conn, error) {
	hs, opt := mcphost.FromStored(s), m.a.dialOptions(ctx, m.cfg)
	if s.Plugin == "" {
		return mcphost.Dial(ctx, hs, opt)
	}
	if all, err := collection.Load(m.cfg.DataDir, io.Discard); err != nil || !all.SignsIn(s.Plugin) {
		return mcphost.Dial(ctx, hs, opt)
	}
	kr, err := m.a.openSecrets(m.cfg)
	if err != nil {
		return nil, err
	}
	// It lives as long as the connection does: a one-shot command ends
	// with the process; it starts no listener.
	mgr := signin.NewManager(signin.Options{Keyring: kr, LockDir: signinLockDir(m.cfg)})
	return mgr.Dial(ctx, m.db, hs, opt)
}

// adder adds servers to this command's store, reaching them as the
// service would and moving literal secrets to its keyring.
func (m mcpCmd) adder(ctx context.Context) mcphost.Adder {
	return mcphost.Adder{
		Store: m.db,
		OpenKeyring: func() (mcphost.Keyring, error) {
			kr, err := m.a.openSecrets(m.cfg)
			if err != nil {
				return nil, err
			}
			return kr, nil
		},
		Dial:     m.a.dialOptions(ctx, m.cfg),
		Progress: m.progress,
		Warn:     func(w string) { fmt.Fprintf(m.a.stderr, "jarvisbot: warning: %s\n", w) },
	}
}

// report says what moved to the keyring and what was added.
func (m mcpCmd) report(c mcphost.Candidate, prefix string, tools bool) {
	for _, mv := range c.Moves {
		fmt.Fprintf(m.a.stdout, "  %s: moved the literal %s into the keyring as %s\n", c.Server.Name, mv.What, mv.Ref)
	}
	fmt.Fprintf(m.a.stdout, "%sAdded %s (%s, %s): %d tools, switched on.\n", prefix, c.Server.Name, c.Info, c.Server.Transport, len(c.Tools))
	if !tools {
		return
	}
	for i, t := range c.Tools {
		if i == 10 {
			fmt.Fprintf(m.a.stdout, "  … and %d more (jarvisbot mcp show %s)\n", len(c.Tools)-10, c.Server.Name)
			break
		}
		fmt.Fprintf(m.a.stdout, "  %s\n", t.Name)
	}
}

// add checks that the server answers and lists its tools, then records it
// switched on (mcphost.Adder).
func (m mcpCmd) add(ctx context.Context, s store.MCPServer) error {
	c, err := m.adder(ctx).Add(ctx, s)
	if err != nil {
		return err
	}
	m.report(c, "", true)
	return nil
}

// switchServer turns a server on or off. A server stored in a state that
// cannot start (a damaged row, settings today's checks refuse) is not
// switched on: it is to be removed and added again.
func (m mcpCmd) switchServer(ctx context.Context, name string, on bool) error {
	s, err := m.find(ctx, name)
	if err != nil {
		return err
	}
	name = s.Name
	if hs := mcphost.FromStored(s); on && (s.Problem != "" || hs.Check() != nil) {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s cannot be switched on: %s", mcphost.ShownName(name), mcphost.Trouble(s, false))
	}
	if err := m.db.SetMCPServerEnabled(ctx, name, on); err != nil {
		return err
	}
	if !on {
		fmt.Fprintf(m.a.stdout, "%s is off: its settings are kept, its tools are no longer offered. Switch it back with: jarvisbot mcp on %s\n", mcphost.ShownName(name), mcphost.ShownName(name))
	} else {
		fmt.Fprintf(m.a.stdout, "%s is on: its tools are offered again while it answers.\n", mcphost.ShownName(name))
	}
	return nil
}

// remove forgets a server and deletes the secrets jarvisbot moved to the
// keyring for it, except those another server, a CLI tool or the config
// still refers to.
func (m mcpCmd) remove(ctx context.Context, name string) error {
	s, err := m.find(ctx, name)
	if err != nil {
		return err
	}
	name = s.Name
	// What cannot be read must not keep the owner from removing the
	// server; its secrets then stay, since nothing says they are unused.
	use, useErr := m.secretsInUse(ctx, name)
	if err := m.db.RemoveMCPServer(ctx, name); err != nil {
		return err
	}
	fmt.Fprintf(m.a.stdout, "Removed MCP server %s.\n", mcphost.ShownName(name))
	if useErr != nil && len(s.Secrets) > 0 {
		fmt.Fprintf(m.a.stdout, "Kept its secrets %s in the keyring: whether anything else refers to them cannot be told (%v). Delete each with jarvisbot secrets delete NAME once nothing needs it.\n", strings.Join(s.Secrets, ", "), useErr)
		return nil
	}
	var drop []string
	for _, n := range s.Secrets {
		if by, ok := use[n]; ok {
			fmt.Fprintf(m.a.stdout, "Kept its secret %s in the keyring: %s refers to it.\n", n, by)
		} else if secrets.ValidName(n) == nil {
			drop = append(drop, n)
		}
	}
	if len(drop) == 0 {
		return nil
	}
	kr, err := m.a.openSecrets(m.cfg)
	for _, n := range drop {
		if err == nil {
			if err = kr.Delete(ctx, n); jarvisbot.ErrorCode(err) == jarvisbot.ENOTFOUND {
				err = nil // deleted by hand already
			}
		}
		if err != nil {
			return jarvisbot.Errorf(jarvisbot.ErrorCode(err), "%s is removed, but its secret %s is still in the keyring (%w): delete it with jarvisbot secrets delete %s", mcphost.ShownName(name), n, err, n)
		}
		fmt.Fprintf(m.a.stdout, "Deleted its secret %s from the keyring.\n", n)
	}
	return nil
}

// find returns a stored server by the name the owner typed. A name that no
// longer passes the checks is shown quoted when it holds control
// characters ("ctl\x1bname"); typed back that way, with or without the
// quotes, it finds the server.
func (m mcpCmd) find(ctx context.Context, name string) (store.MCPServer, error) {
	s, err := m.db.MCPServer(ctx, name)
	if jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		return s, err
	}
	for _, q := range []string{name, `"` + name + `"`} {
		if u, uerr := strconv.Unquote(q); uerr == nil && u != name {
			if s, err2 := m.db.MCPServer(ctx, u); err2 == nil {
				return s, nil
			}
		}
	}
	return s, err
}

// call runs one tool as the owner, to try a server by hand.
func (m mcpCmd) call(ctx context.Context, name, tool, args string) error {
	s, err := m.db.MCPServer(ctx, name)
	if err != nil {
		return err
	}
	cn, err := m.dialStored(ctx, s)
	if err != nil {
		return err
	}
	defer cn.Close()
	res, err := cn.Call(ctx, tool, json.RawMessage(args), 0)
	if err != nil {
		return err
	}
	fmt.Fprintln(m.a.stdout, res.Text)
	if res.IsError {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "tool %s/%s reported an error (above)", name, tool)
	}
	return nil
}

// mcpRow is one line of `mcp list --json`.
type mcpRow struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	Target    string `json:"target"`
	Enabled   bool   `json:"enabled"`
	Trusted   bool   `json:"trusted"`
	Tools     int    `json:"tools"`
	Status    string `json:"status,omitempty"`  // with --check: "up" or why not
	Problem   string `json:"problem,omitempty"` // why it cannot run as stored
}

func (m mcpCmd) list(ctx context.Context, check, asJSON bool) error {
	rows, err := m.rows(ctx, check)
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

// rows are the stored servers as listed; with check, every enabled one
// is reached now and its tools listed again.
func (m mcpCmd) rows(ctx context.Context, check bool) ([]mcpRow, error) {
	list, err := m.db.MCPServers(ctx)
	if err != nil {
		return nil, err
	}
	rows := make([]mcpRow, 0, len(list))
	for _, s := range list {
		r := mcpRow{Name: s.Name, Transport: s.Transport, Target: mcphost.Target(s), Enabled: s.Enabled, Trusted: s.Trusted, Problem: mcphost.Trouble(s, true)}
		var tools []json.RawMessage
		if json.Unmarshal(s.Tools, &tools) == nil {
			r.Tools = len(tools)
		}
		if check && s.Enabled {
			if cn, err := m.dialStored(ctx, s); err != nil {
				r.Status = mcphost.RedactText(s, err.Error())
			} else {
				r.Status, r.Tools = "up", len(cn.Tools())
				s.Tools = mcphost.ToolsJSON(cn.Tools())
				cn.Close()
				if err := m.db.SetMCPServerTools(ctx, s.Name, s.Tools); err != nil {
					return nil, err
				}
				r.Problem = mcphost.Trouble(s, true) // the tools listed now replace the cached ones
			}
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func (m mcpCmd) show(ctx context.Context, name string) error {
	stored, err := m.find(ctx, name)
	if err != nil {
		return err
	}
	w := m.a.stdout
	showSettings(w, stored)
	caps, n, err := toolsOf(stored)
	switch {
	case err == nil:
	case n < 0:
		fmt.Fprintf(w, "\nIts cached tool list cannot be read: jarvisbot mcp list --check lists its tools again.\n")
		return nil
	default:
		fmt.Fprintf(w, "\n%d tools (as last listed), which the catalog refuses (%v): jarvisbot mcp list --check lists its tools again.\n", n, err)
		return nil
	}
	fmt.Fprintf(w, "\n%d tools (as last listed):\n", n)
	for _, cp := range caps {
		fmt.Fprintf(w, "  %-40s %-7s %s\n", cp.ID, cp.Tier, visible.Line(firstSentence(cp.Description)))
	}
	return nil
}

// showSettings writes how a stored server is reached, its secrets
// redacted, and what keeps it from running.
func showSettings(w io.Writer, stored store.MCPServer) {
	s := mcphost.Redacted(stored)
	state := "on"
	if !s.Enabled {
		state = "off (settings kept, tools not offered)"
	}
	fmt.Fprintf(w, "%s: %s, %s\n", mcphost.ShownName(s.Name), state, s.Transport)
	if s.Transport == mcphost.Stdio {
		fmt.Fprintf(w, "command: %s\n", visible.Line(mcphost.Target(stored)))
	} else {
		fmt.Fprintf(w, "url:     %s\n", visible.Line(mcphost.Target(stored)))
	}
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		fmt.Fprintf(w, "env:     %s=%s\n", visible.Line(k), visible.Line(s.Env[k]))
	}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		fmt.Fprintf(w, "header:  %s: %s\n", visible.Line(k), visible.Line(s.Headers[k]))
	}
	timeout := s.Timeout
	if timeout == 0 {
		timeout = mcphost.DefaultCallTimeout
	}
	fmt.Fprintf(w, "timeout: %s per call; trusted annotations: %v\n", timeout, s.Trusted)
	if why := mcphost.Trouble(stored, false); why != "" {
		fmt.Fprintf(w, "problem: %s\n", why)
	}
}

// toolsOf are a stored server's tools as last listed, with the tiers the
// catalog gives them, and how many were listed; n is -1 when the cached
// list cannot be read, and an error says the catalog refuses them.
func toolsOf(s store.MCPServer) (caps []catalog.Capability, n int, err error) {
	var tools []catalog.SnapshotTool
	if err := json.Unmarshal(s.Tools, &tools); err != nil {
		return nil, -1, err
	}
	c := catalog.New()
	if err := c.SetServer(catalog.Server{ID: s.Name, Trusted: s.Trusted, Connected: true}, tools); err != nil {
		return nil, len(tools), err
	}
	return c.View().Capabilities(), len(tools), nil
}

// firstSentence is a tool's description cut to its first sentence and 80
// characters, for one line of a list.
func firstSentence(desc string) string {
	if i := strings.IndexAny(desc, ".\n"); i > 0 {
		desc = desc[:i]
	}
	if r := []rune(desc); len(r) > 80 { // never cut a letter in two
		desc = string(r[:77]) + "..."
	}
	return desc
}

// importFile adds every server of an mcp.json written for another app, or
// none of them (mcphost.Adder.Import).
func (m mcpCmd) importFile(ctx context.Context, file string) error {
	list, total, err := m.adder(ctx).Import(ctx, file, func(name string, err error) {
		fmt.Fprintf(m.a.stdout, "✗ %s: %v\n", name, err)
	})
	if err != nil {
		return err
	}
	for _, c := range list {
		m.report(c, "✓ ", false)
	}
	fmt.Fprintf(m.a.stdout, "Imported %d of %d servers from %s.\n", len(list), total, file)
	return nil
}
