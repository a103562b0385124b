package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/secrets"
	"github.com/jarvisbot/jarvisbot/store/sqlite"
)

const mcpUsage = `mcp add NAME [--env K=V]... [--header "K: V"]... [--timeout 30s] [--trusted] -- COMMAND [ARGS...]
       jarvisbot mcp add NAME URL [--header "K: V"]... [--sse] [--timeout 30s] [--trusted]
       jarvisbot mcp list [--check] [--json] | show NAME | on NAME | off NAME | remove NAME
       jarvisbot mcp call NAME TOOL ['{"arg": "value"}']
       jarvisbot mcp import FILE   (Claude Desktop, Claude Code, Cursor or VS Code mcp.json)`

// listFlag collects a repeated flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ", ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// cmdMCP: the owner's MCP servers (M1).
func cmdMCP(ctx context.Context, a *app, args []string) error {
	// Everything after "--" is the server's command line, verbatim: its
	// own flags are not ours.
	args, command := splitCommand(args)
	fs := newFlagSet(a, "mcp", mcpUsage)
	var env, hdrs listFlag
	fs.Var(&env, "env", "add: an environment variable K=V for a stdio server (V may be ${SECRET}); repeatable")
	fs.Var(&hdrs, "header", `add: an HTTP header "K: V" (V may hold ${SECRET}); repeatable`)
	timeout := fs.Duration("timeout", 0, "add: deadline of every tool call (default 30s)")
	trusted := fs.Bool("trusted", false, "add: trust the server's annotations to lower tool tiers")
	sse := fs.Bool("sse", false, "add: the URL speaks only the older SSE transport")
	check := fs.Bool("check", false, "list: connect to every enabled server now and show whether it answers")
	asJSON := fs.Bool("json", false, "list: one JSON array")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fs.Usage()
		return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot %s", mcpUsage)
	}
	cfg, db, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	m := mcpCmd{a: a, cfg: cfg, db: db}
	one := func() (string, error) {
		if len(pos) != 2 {
			return "", jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot mcp %s NAME", pos[0])
		}
		return pos[1], nil
	}
	switch pos[0] {
	case "add":
		s := store.MCPServer{Timeout: *timeout, Trusted: *trusted, Enabled: true}
		switch {
		case len(pos) == 2 && len(command) > 0:
			s.Name, s.Transport, s.Command, s.Args = pos[1], mcphost.Stdio, command[0], command[1:]
		case len(pos) == 3 && len(command) == 0:
			s.Name, s.Transport, s.URL = pos[1], mcphost.StreamableHTTP, pos[2]
			if *sse {
				s.Transport = mcphost.SSE
			}
		default:
			return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot %s", mcpUsage)
		}
		if s.Env, err = keyValues(env, "=", "--env"); err != nil {
			return err
		}
		if s.Headers, err = keyValues(hdrs, ":", "--header"); err != nil {
			return err
		}
		if s.Transport != mcphost.Stdio && len(s.Env) > 0 {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "--env is for stdio servers; an HTTP server takes --header")
		}
		return m.add(ctx, s)
	case "list":
		return m.list(ctx, *check, *asJSON)
	case "show":
		name, err := one()
		if err != nil {
			return err
		}
		return m.show(ctx, name)
	case "on", "off":
		name, err := one()
		if err != nil {
			return err
		}
		return m.switchServer(ctx, name, pos[0] == "on")
	case "remove":
		name, err := one()
		if err != nil {
			return err
		}
		return m.remove(ctx, name)
	case "call":
		if len(pos) < 3 || len(pos) > 4 {
			return jarvisbot.Errorf(jarvisbot.EINVALID, `usage: jarvisbot mcp call NAME TOOL ['{"arg": "value"}']`)
		}
		argJSON := "{}"
		if len(pos) == 4 {
			argJSON = pos[3]
		}
		return m.call(ctx, pos[1], pos[2], argJSON)
	case "import":
		file, err := one()
		if err != nil {
			return err
		}
		return m.importFile(ctx, file)
	}
	return jarvisbot.Errorf(jarvisbot.EINVALID, "unknown mcp subcommand %q: use add, list, show, on, off, remove or import", pos[0])
}

type mcpCmd struct {
	a   *app
	cfg config.Config
	db  *sqlite.DB
	// pending holds the values of secrets moved out of a server's settings
	// while it is tried, before they are kept: a server that does not
	// answer leaves the keyring as it was.
	pending map[string]string
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
			if plugins.LiteralSecret(k, kv) {
				kv = "***" // a credential typed without its key is still one
			}
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "%s %q: write it as KEY%sVALUE", flagName, kv, sep)
		}
		out[k] = v
	}
	return out, nil
}

// noLiteralSecrets refuses settings that would put a credential on disk
// (a CLI tool's environment, which has no keyring move).
func noLiteralSecrets(s store.MCPServer) error {
	for _, l := range literals(s) {
		switch l.Field {
		case plugins.FieldEnv, plugins.FieldHeader:
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s of %s holds a literal credential: jarvisbot keeps secrets only in the keyring. Run jarvisbot secrets set NAME (it reads the value from stdin) and write ${NAME} instead, e.g. %s", describe(l), s.Name, example(l.Field, l.Key))
		default:
			return jarvisbot.Errorf(jarvisbot.EINVALID, "the %s of %s holds a literal credential: store it with jarvisbot secrets set NAME (it reads the value from stdin) and write ${NAME} in its place", describe(l), s.Name)
		}
	}
	return nil
}

func example(kind, k string) string {
	if kind == "header" {
		return fmt.Sprintf("--header \"%s: Bearer ${%s}\"", k, secretRef(k))
	}
	return fmt.Sprintf("--env %s=${%s}", k, secretRef(k))
}

var nonRef = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// secretRef turns a name into one a ${NAME} reference can hold.
func secretRef(s string) string {
	return strings.Trim(strings.ToUpper(nonRef.ReplaceAllString(s, "_")), "_")
}

// hostServer is the connection settings of a stored server.
func hostServer(s store.MCPServer) mcphost.Server {
	return mcphost.Server{Name: s.Name, Transport: s.Transport, Command: s.Command, Args: s.Args, Env: s.Env,
		Cwd: s.Cwd, URL: s.URL, Headers: s.Headers, Timeout: s.Timeout, Trusted: s.Trusted, Plugin: s.Plugin}
}

// lookup resolves ${NAME} references: the secrets of a server being
// tried before they are kept, the keyring, then the environment. The
// keyring is opened only when a reference needs it.
func (m mcpCmd) lookup(ctx context.Context) mcphost.Lookup {
	return func(name string) (string, bool) {
		if v, ok := m.pending[name]; ok {
			return v, true
		}
		if kr, err := m.a.openSecrets(m.cfg); err == nil {
			if v, err := kr.Get(ctx, name); err == nil {
				return v, true
			}
		}
		if v := m.a.getenv(name); v != "" {
			return v, true
		}
		return "", false
	}
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
	fmt.Fprintf(m.a.stderr, "Connecting to %s (%s)...\n", shownName(s.Name), target(s))
}

// target is what a server is, as it may be shown: its command line or its
// URL, literal credentials hidden.
func target(s store.MCPServer) string {
	s = redacted(s)
	if s.Transport == mcphost.Stdio || (s.Transport == "" && s.Command != "") {
		return strings.Join(append([]string{s.Command}, s.Args...), " ")
	}
	return s.URL
}

// dial connects to a stored server without a word; safe to run at once
// for several servers.
func (m mcpCmd) dial(ctx context.Context, s store.MCPServer) (*mcphost.Conn, error) {
	hs := hostServer(s)
	var mgr *signin.Manager
	if s.Plugin != "" {
		if shop, err := loadStore(m.cfg, io.Discard); err == nil {
			if sp, ok := shop[s.Plugin]; ok && needsSignIn(sp.plugin) {
				kr, err := m.a.openSecrets(m.cfg)
				if err != nil {
					return nil, err
				}
				// It lives as long as the connection does: a one-shot command
				// ends with the process; it starts no listener.
				mgr = signin.NewManager(signin.Options{Keyring: kr, LockDir: signinLockDir(m.cfg)})
				hs.Client = &http.Client{Transport: mgr.Transport(s.Plugin, nil)}
			}
		}
	}
	opt := mcphost.DialOptions{Lookup: m.lookup(ctx), InitTimeout: initTimeout(m.a)}
	cn, err := mcphost.Dial(ctx, hs, opt)
	if err != nil && mgr != nil && !errors.Is(err, signin.ErrNeedsAttention) {
		// The server refused the token (401): the transport marked it
		// invalid, so this refreshes it once, or finds the sign-in gone.
		if _, terr := mgr.Token(ctx, s.Plugin); terr != nil {
			err = terr
		} else {
			cn, err = mcphost.Dial(ctx, hs, opt)
		}
	}
	if err != nil && errors.Is(err, signin.ErrNeedsAttention) {
		// The commands that read the store (catalog list, route) take the
		// plugin's tools away once this is recorded; say so when it is not.
		if serr := m.db.SetPluginState(ctx, s.Plugin, store.PluginNeedsAttention); serr != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%w; renew it with jarvisbot plugins signin %s (that it needs attention could not be recorded, so catalog list and route still show it connected: %v)", err, s.Plugin, serr)
		}
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%w; renew it with jarvisbot plugins signin %s", err, s.Plugin)
	}
	return cn, err
}

// initTimeout is the deadline for a server to start and answer; npx may
// download a package on first use, so the default is generous.
func initTimeout(a *app) time.Duration {
	if d, err := time.ParseDuration(a.getenv("JARVIS_MCP_INIT_TIMEOUT")); err == nil && d > 0 {
		return d
	}
	return 60 * time.Second
}

func toolsJSON(tools []catalog.SnapshotTool) []byte {
	b, err := json.Marshal(tools)
	if err != nil {
		return []byte("[]")
	}
	return b
}

// candidate is a server ready to be recorded: its settings hold
// references where literal secrets were, the moves hold their values, and
// after it answered, what it said about itself.
type candidate struct {
	s     store.MCPServer
	moves []secretMove
	info  string
	tools []catalog.SnapshotTool
}

// prepare moves s's literal secrets out of its settings (nothing is
// written yet) and checks the settings and the name.
func (m mcpCmd) prepare(ctx context.Context, s store.MCPServer, taken func(string) bool) (candidate, error) {
	moves, err := moveSecrets(&s, taken)
	if err != nil {
		return candidate{}, err
	}
	hs := hostServer(s)
	if err := hs.Check(); err != nil {
		return candidate{}, jarvisbot.Errorf(jarvisbot.EINVALID, "%s", redactText(s, err.Error()))
	}
	if _, err := m.db.MCPServer(ctx, s.Name); err == nil {
		return candidate{}, jarvisbot.Errorf(jarvisbot.ECONFLICT, "an MCP server named %s exists already: remove it first (jarvisbot mcp remove %s) or choose another name", s.Name, s.Name)
	}
	return candidate{s: s, moves: moves}, nil
}

// try connects to a candidate, with its moved secrets resolved from
// memory, and records what it answered.
func (m mcpCmd) try(ctx context.Context, c *candidate) error {
	t := m
	t.pending = map[string]string{}
	for _, mv := range c.moves {
		t.pending[mv.ref] = mv.value
	}
	cn, err := t.dial(ctx, c.s)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.ErrorCode(err), "not added: %w", err)
	}
	defer cn.Close()
	for _, l := range cn.LeftOut() {
		fmt.Fprintf(m.a.stderr, "jarvisbot: warning: %s\n", l)
	}
	c.s.Transport = cn.Transport // after an SSE fallback, remember SSE
	c.tools = cn.Tools()
	c.s.Tools = toolsJSON(c.tools)
	c.info = cn.Info.Name
	if cn.Info.Version != "" {
		c.info += " " + cn.Info.Version
	}
	return nil
}

// record keeps the candidates' secrets in the keyring and the candidates
// in the store, all or none: a failure takes back the secrets written.
func (m mcpCmd) record(ctx context.Context, kr *secrets.Keyring, list []candidate) error {
	var moves []secretMove
	servers := make([]store.MCPServer, len(list))
	for i, c := range list {
		moves = append(moves, c.moves...)
		servers[i] = c.s
	}
	undo := func() error { return nil }
	if len(moves) > 0 {
		u, err := keep(ctx, kr, moves)
		if err != nil {
			return err
		}
		undo = u
	}
	if err := m.db.AddMCPServers(ctx, servers); err != nil {
		if uerr := undo(); uerr != nil {
			return errors.Join(err, uerr)
		}
		return err
	}
	return nil
}

// report says what moved to the keyring and what was added.
func (m mcpCmd) report(c candidate, prefix string, tools bool) {
	for _, mv := range c.moves {
		fmt.Fprintf(m.a.stdout, "  %s: moved the literal %s into the keyring as %s\n", c.s.Name, mv.what, mv.ref)
	}
	fmt.Fprintf(m.a.stdout, "%sAdded %s (%s, %s): %d tools, switched on.\n", prefix, c.s.Name, c.info, c.s.Transport, len(c.tools))
	if !tools {
		return
	}
	for i, t := range c.tools {
		if i == 10 {
			fmt.Fprintf(m.a.stdout, "  … and %d more (jarvisbot mcp show %s)\n", len(c.tools)-10, c.s.Name)
			break
		}
		fmt.Fprintf(m.a.stdout, "  %s\n", t.Name)
	}
}

// add checks that the server answers and lists its tools, then records it
// switched on. Literal secrets in its settings move to the keyring, and
// the settings refer to them. A server that does not answer is not added,
// and its secrets are not kept.
func (m mcpCmd) add(ctx context.Context, s store.MCPServer) error {
	var kr *secrets.Keyring
	taken := func(string) bool { return false }
	if len(literals(s)) > 0 {
		k, t, err := m.keyringNames(ctx)
		if err != nil {
			return err
		}
		kr, taken = k, t
	}
	c, err := m.prepare(ctx, s, taken)
	if err != nil {
		return err
	}
	m.progress(c.s)
	if err := m.try(ctx, &c); err != nil {
		return err
	}
	if err := m.record(ctx, kr, []candidate{c}); err != nil {
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
	if hs := hostServer(s); on && (s.Problem != "" || hs.Check() != nil) {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s cannot be switched on: %s", shownName(name), trouble(s, false))
	}
	if err := m.db.SetMCPServerEnabled(ctx, name, on); err != nil {
		return err
	}
	if !on {
		fmt.Fprintf(m.a.stdout, "%s is off: its settings are kept, its tools are no longer offered. Switch it back with: jarvisbot mcp on %s\n", shownName(name), shownName(name))
	} else {
		fmt.Fprintf(m.a.stdout, "%s is on: its tools are offered again while it answers.\n", shownName(name))
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
	fmt.Fprintf(m.a.stdout, "Removed MCP server %s.\n", shownName(name))
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
			return jarvisbot.Errorf(jarvisbot.ErrorCode(err), "%s is removed, but its secret %s is still in the keyring (%w): delete it with jarvisbot secrets delete %s", shownName(name), n, err, n)
		}
		fmt.Fprintf(m.a.stdout, "Deleted its secret %s from the keyring.\n", n)
	}
	return nil
}

// trouble says why a stored server cannot run as stored, and what to do,
// or "": a row that did not read whole, settings today's checks refuse or
// a literal secret an older jarvisbot stored (remove it and add it again),
// and with tools, a cached tool list the catalog refuses (list it again).
func trouble(s store.MCPServer, tools bool) string {
	again := fmt.Sprintf(": remove it (jarvisbot mcp remove %s) and add it again", shownName(s.Name))
	if s.Problem != "" {
		return s.Problem + again
	}
	hs := hostServer(s)
	if err := hs.Check(); err != nil {
		return redactText(s, strings.TrimPrefix(err.Error(), "server "+s.Name+": ")) + again
	}
	if lits := literals(s); len(lits) > 0 {
		return fmt.Sprintf("its %s holds a literal credential an older jarvisbot stored%s, which moves it to the keyring", describe(lits[0]), again)
	}
	if !tools {
		return ""
	}
	var list []catalog.SnapshotTool
	err := json.Unmarshal(s.Tools, &list)
	if err == nil {
		err = catalog.New().SetServer(catalog.Server{ID: s.Name, Trusted: s.Trusted, Connected: true}, list)
	}
	if err != nil {
		return fmt.Sprintf("its cached tool list is refused (%v): jarvisbot mcp list --check lists its tools again", err)
	}
	return ""
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
	list, err := m.db.MCPServers(ctx)
	if err != nil {
		return err
	}
	rows := make([]mcpRow, 0, len(list))
	for _, s := range list {
		r := mcpRow{Name: s.Name, Transport: s.Transport, Target: target(s), Enabled: s.Enabled, Trusted: s.Trusted, Problem: trouble(s, true)}
		var tools []json.RawMessage
		if json.Unmarshal(s.Tools, &tools) == nil {
			r.Tools = len(tools)
		}
		if check && s.Enabled {
			if cn, err := m.dialStored(ctx, s); err != nil {
				r.Status = redactText(s, err.Error())
			} else {
				r.Status, r.Tools = "up", len(cn.Tools())
				s.Tools = toolsJSON(cn.Tools())
				cn.Close()
				if err := m.db.SetMCPServerTools(ctx, s.Name, s.Tools); err != nil {
					return err
				}
				r.Problem = trouble(s, true) // the tools listed now replace the cached ones
			}
		}
		rows = append(rows, r)
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
	troubled := 0
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
			troubled++
		}
		fmt.Fprintf(tw, "%s\t%s\t%d tools\t%s\t%s\n", shownName(r.Name), state, r.Tools, r.Transport, r.Target)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rows {
		if r.Problem != "" {
			fmt.Fprintf(m.a.stdout, "%s needs attention: %s.\n", shownName(r.Name), r.Problem)
		}
	}
	return nil
}

func (m mcpCmd) show(ctx context.Context, name string) error {
	stored, err := m.find(ctx, name)
	if err != nil {
		return err
	}
	s := redacted(stored)
	w := m.a.stdout
	state := "on"
	if !s.Enabled {
		state = "off (settings kept, tools not offered)"
	}
	fmt.Fprintf(w, "%s: %s, %s\n", shownName(s.Name), state, s.Transport)
	if s.Transport == mcphost.Stdio {
		fmt.Fprintf(w, "command: %s\n", target(stored))
	} else {
		fmt.Fprintf(w, "url:     %s\n", target(stored))
	}
	for _, k := range sortedKeys(s.Env) {
		fmt.Fprintf(w, "env:     %s=%s\n", k, s.Env[k])
	}
	for _, k := range sortedKeys(s.Headers) {
		fmt.Fprintf(w, "header:  %s: %s\n", k, s.Headers[k])
	}
	timeout := s.Timeout
	if timeout == 0 {
		timeout = mcphost.DefaultCallTimeout
	}
	fmt.Fprintf(w, "timeout: %s per call; trusted annotations: %v\n", timeout, s.Trusted)
	if why := trouble(stored, false); why != "" {
		fmt.Fprintf(w, "problem: %s\n", why)
	}
	var tools []catalog.SnapshotTool
	c := catalog.New()
	if err := json.Unmarshal(s.Tools, &tools); err != nil {
		fmt.Fprintf(w, "\nIts cached tool list cannot be read: jarvisbot mcp list --check lists its tools again.\n")
		return nil
	}
	if err := c.SetServer(catalog.Server{ID: s.Name, Trusted: s.Trusted, Connected: true}, tools); err != nil {
		fmt.Fprintf(w, "\n%d tools (as last listed), which the catalog refuses (%v): jarvisbot mcp list --check lists its tools again.\n", len(tools), err)
		return nil
	}
	fmt.Fprintf(w, "\n%d tools (as last listed):\n", len(tools))
	for _, cp := range c.View().Capabilities() {
		desc := cp.Description
		if i := strings.IndexAny(desc, ".\n"); i > 0 {
			desc = desc[:i]
		}
		if len(desc) > 80 {
			desc = desc[:77] + "..."
		}
		fmt.Fprintf(w, "  %-40s %-7s %s\n", cp.ID, cp.Tier, desc)
	}
	return nil
}

// importFile adds every server of an mcp.json written for another app
// (the mcpServers shape of Claude Desktop, Claude Code and Cursor, or VS
// Code's servers), or none of them. Every entry is checked first (its
// name, a clash with a stored server or another entry, its settings), then
// each is started and listed like `mcp add`; only when all pass are
// their literal secrets moved to the keyring and the servers recorded. A
// failed import changes no secret and no server.
func (m mcpCmd) importFile(ctx context.Context, file string) error {
	data, err := plugins.ImportLimit().ReadFile(file)
	if err != nil {
		if jarvisbot.ErrorCode(err) == jarvisbot.EINVALID {
			return err
		}
		return jarvisbot.Errorf(jarvisbot.EINVALID, "read %s: %w", file, err)
	}
	var doc struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
		Servers    map[string]json.RawMessage `json:"servers"` // VS Code
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s is not a JSON mcp.json: %w", file, err)
	}
	entries := doc.MCPServers
	if len(entries) == 0 {
		entries = doc.Servers
	}
	if len(entries) == 0 {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s has no \"mcpServers\" (or \"servers\") object with servers in it", file)
	}
	keys := slices.Sorted(maps.Keys(entries))
	failed := func(code jarvisbot.Code, n int) error {
		return jarvisbot.Errorf(code, "nothing was imported: %d of %d servers in %s cannot be added (see above); fix or remove them there and import again", n, len(keys), file)
	}

	type entry struct {
		key string
		s   store.MCPServer
	}
	var read []entry
	bad := 0
	for _, k := range keys {
		s, err := importEntry(k, entries[k])
		if err != nil {
			fmt.Fprintf(m.a.stdout, "✗ %s: %v\n", shownName(k), err)
			bad++
			continue
		}
		read = append(read, entry{k, s})
	}
	// The keyring is read (never written) only when a secret will move.
	var kr *secrets.Keyring
	taken := func(string) bool { return false }
	if slices.ContainsFunc(read, func(e entry) bool { return len(literals(e.s)) > 0 }) {
		if kr, taken, err = m.keyringNames(ctx); err != nil {
			return err
		}
	}
	planned := map[string]bool{} // keyring names the entries before took
	from := map[string]string{}  // server name -> the entry that took it
	list := make([]candidate, 0, len(read))
	for _, e := range read {
		if prev, ok := from[e.s.Name]; ok {
			fmt.Fprintf(m.a.stdout, "✗ %s: becomes the server name %s, which %s takes already: rename one of them\n", shownName(e.key), e.s.Name, shownName(prev))
			bad++
			continue
		}
		from[e.s.Name] = e.key
		c, err := m.prepare(ctx, e.s, func(n string) bool { return planned[n] || taken(n) })
		if err != nil {
			fmt.Fprintf(m.a.stdout, "✗ %s: %v\n", shownName(e.key), err)
			bad++
			continue
		}
		for _, mv := range c.moves {
			planned[mv.ref] = true
		}
		list = append(list, c)
	}
	if bad > 0 {
		return failed(jarvisbot.EINVALID, bad)
	}

	// Every server is started at once: a slow npx start costs its own
	// time, not the sum. Each result goes to its own slot.
	errs := make([]error, len(list))
	var wg sync.WaitGroup
	for i := range list {
		m.progress(list[i].s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = m.try(ctx, &list[i])
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			fmt.Fprintf(m.a.stdout, "✗ %s: %v\n", list[i].s.Name, err)
			bad++
		}
	}
	if bad > 0 {
		return failed(jarvisbot.EUNAVAILABLE, bad)
	}
	if err := m.record(ctx, kr, list); err != nil {
		return jarvisbot.Errorf(jarvisbot.ErrorCode(err), "nothing was imported: %w", err)
	}
	for _, c := range list {
		m.report(c, "✓ ", false)
	}
	fmt.Fprintf(m.a.stdout, "Imported %d of %d servers from %s.\n", len(list), len(keys), file)
	return nil
}

// importEntry reads one server entry of another app's mcp.json.
func importEntry(key string, raw json.RawMessage) (store.MCPServer, error) {
	var e struct {
		Type    string            `json:"type"`
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
		Cwd     string            `json:"cwd"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
		Timeout float64           `json:"timeout"` // seconds, as some apps write it
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return store.MCPServer{}, jarvisbot.Errorf(jarvisbot.EINVALID, "not a server entry: %w", err)
	}
	s := store.MCPServer{Name: importName(key), Command: e.Command, Args: e.Args, Env: e.Env, Cwd: e.Cwd, URL: e.URL, Headers: e.Headers, Enabled: true}
	switch strings.ToLower(e.Type) {
	case "":
	case "stdio":
		s.Transport = mcphost.Stdio
	case "sse":
		s.Transport = mcphost.SSE
	case "http", "streamable-http", "streamablehttp":
		s.Transport = mcphost.StreamableHTTP
	default:
		return s, jarvisbot.Errorf(jarvisbot.EINVALID, "unknown transport %q: use stdio, http (streamable HTTP) or sse", e.Type)
	}
	if e.Timeout < 0 {
		return s, jarvisbot.Errorf(jarvisbot.EINVALID, "timeout %v is negative", e.Timeout)
	}
	s.Timeout = time.Duration(e.Timeout * float64(time.Second))
	if s.Name == "" {
		return s, jarvisbot.Errorf(jarvisbot.EINVALID, "has no letter or digit to make a server name of: rename it in the file")
	}
	return s, nil
}

// importName makes another app's server key a valid jarvisbot name.
func importName(n string) string {
	n = strings.ToLower(strings.TrimSpace(n))
	n = regexp.MustCompile(`[^a-z0-9._-]+`).ReplaceAllString(n, "-")
	return strings.Trim(n, "-._")
}
