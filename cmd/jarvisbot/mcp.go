package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/config"
	"github.com/jarvisbot/jarvisbot/mcphost"
	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/secrets"
	"github.com/jarvisbot/jarvisbot/signin"
	"github.com/jarvisbot/jarvisbot/store"
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
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	db, err := a.openStore(ctx, cfg)
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
		if err := db.SetMCPServerEnabled(ctx, name, pos[0] == "on"); err != nil {
			return err
		}
		if pos[0] == "off" {
			fmt.Fprintf(a.stdout, "%s is off: its settings are kept, its tools are no longer offered. Switch it back with: jarvisbot mcp on %s\n", name, name)
		} else {
			fmt.Fprintf(a.stdout, "%s is on: its tools are offered again while it answers.\n", name)
		}
		return nil
	case "remove":
		name, err := one()
		if err != nil {
			return err
		}
		if err := db.RemoveMCPServer(ctx, name); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "Removed MCP server %s.\n", name)
		return nil
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
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "%s %q: write it as KEY%sVALUE", flagName, kv, sep)
		}
		out[k] = v
	}
	return out, nil
}

// noLiteralSecrets refuses settings that would put a credential on disk.
func noLiteralSecrets(s store.MCPServer) error {
	check := func(kind string, m map[string]string) error {
		for k, v := range m {
			if plugins.LiteralSecret(k, v) {
				return jarvisbot.Errorf(jarvisbot.EINVALID, "%s %s of server %s holds a literal credential: jarvisbot keeps secrets only in the keyring. Run jarvisbot secrets set NAME (it reads the value from stdin) and write ${NAME} instead, e.g. %s", kind, k, s.Name, example(kind, k))
			}
		}
		return nil
	}
	if err := check("env", s.Env); err != nil {
		return err
	}
	if err := check("header", s.Headers); err != nil {
		return err
	}
	for _, arg := range s.Args {
		if plugins.LiteralSecret("", arg) {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "an argument of server %s looks like a literal credential: pass it through --env NAME=${SECRET} instead", s.Name)
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

// lookup resolves ${NAME} references: the keyring first, then the
// environment. The keyring is opened only when a reference needs it.
func (m mcpCmd) lookup(ctx context.Context) mcphost.Lookup {
	return func(name string) (string, bool) {
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
	what := s.URL
	if s.Transport == mcphost.Stdio {
		what = strings.Join(append([]string{s.Command}, s.Args...), " ")
	}
	fmt.Fprintf(m.a.stderr, "Connecting to %s (%s)...\n", s.Name, what)
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
				mgr = signin.NewManager(signin.Options{Keyring: kr})
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
		m.db.SetPluginState(ctx, s.Plugin, store.PluginNeedsAttention)
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

// add checks that the server answers and lists its tools, then records it
// switched on. A server that does not answer is not added.
func (m mcpCmd) add(ctx context.Context, s store.MCPServer) error {
	hs := hostServer(s)
	if err := hs.Check(); err != nil {
		return err
	}
	if err := noLiteralSecrets(s); err != nil {
		return err
	}
	if _, err := m.db.MCPServer(ctx, s.Name); err == nil {
		return jarvisbot.Errorf(jarvisbot.ECONFLICT, "an MCP server named %s exists already: remove it first (jarvisbot mcp remove %s) or choose another name", s.Name, s.Name)
	}
	cn, err := m.dialStored(ctx, s)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.ErrorCode(err), "not added: %w", err)
	}
	defer cn.Close()
	s.Transport = cn.Transport // after an SSE fallback, remember SSE
	s.Tools = toolsJSON(cn.Tools())
	if err := m.db.AddMCPServer(ctx, s); err != nil {
		return err
	}
	name := cn.Info.Name
	if cn.Info.Version != "" {
		name += " " + cn.Info.Version
	}
	fmt.Fprintf(m.a.stdout, "Added %s (%s, %s): %d tools, switched on.\n", s.Name, name, cn.Transport, len(cn.Tools()))
	for i, t := range cn.Tools() {
		if i == 10 {
			fmt.Fprintf(m.a.stdout, "  … and %d more (jarvisbot mcp show %s)\n", len(cn.Tools())-10, s.Name)
			break
		}
		fmt.Fprintf(m.a.stdout, "  %s\n", t.Name)
	}
	return nil
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
	Status    string `json:"status,omitempty"` // with --check: "up" or why not
}

func (m mcpCmd) list(ctx context.Context, check, asJSON bool) error {
	list, err := m.db.MCPServers(ctx)
	if err != nil {
		return err
	}
	rows := make([]mcpRow, 0, len(list))
	for _, s := range list {
		r := mcpRow{Name: s.Name, Transport: s.Transport, Target: s.URL, Enabled: s.Enabled, Trusted: s.Trusted}
		if s.Transport == mcphost.Stdio {
			r.Target = strings.Join(append([]string{s.Command}, s.Args...), " ")
		}
		var tools []json.RawMessage
		json.Unmarshal(s.Tools, &tools)
		r.Tools = len(tools)
		if check && s.Enabled {
			if cn, err := m.dialStored(ctx, s); err != nil {
				r.Status = err.Error()
			} else {
				r.Status, r.Tools = "up", len(cn.Tools())
				m.db.SetMCPServerTools(ctx, s.Name, toolsJSON(cn.Tools()))
				cn.Close()
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
	for _, r := range rows {
		state := "on"
		if !r.Enabled {
			state = "off"
		}
		if r.Status != "" {
			state += ", " + r.Status
		}
		fmt.Fprintf(tw, "%s\t%s\t%d tools\t%s\t%s\n", r.Name, state, r.Tools, r.Transport, r.Target)
	}
	return tw.Flush()
}

func (m mcpCmd) show(ctx context.Context, name string) error {
	s, err := m.db.MCPServer(ctx, name)
	if err != nil {
		return err
	}
	w := m.a.stdout
	state := "on"
	if !s.Enabled {
		state = "off (settings kept, tools not offered)"
	}
	fmt.Fprintf(w, "%s: %s, %s\n", s.Name, state, s.Transport)
	if s.Transport == mcphost.Stdio {
		fmt.Fprintf(w, "command: %s\n", strings.Join(append([]string{s.Command}, s.Args...), " "))
	} else {
		fmt.Fprintf(w, "url:     %s\n", s.URL)
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
	snap := catalog.SnapshotServer{Name: s.Name, Trusted: s.Trusted}
	json.Unmarshal(s.Tools, &snap.Tools)
	c := catalog.New()
	if err := c.SetServer(catalog.Server{ID: s.Name, Trusted: s.Trusted, Connected: true}, snap.Tools); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%d tools (as last listed):\n", len(snap.Tools))
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
// Code's servers). Literal secrets in it move to the keyring and the
// server refers to them; each server is checked like `mcp add`.
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
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	// The keyring is opened once, when the first secret needs it.
	var kr *secrets.Keyring
	keep := func(name, value string) error {
		if kr == nil {
			k, err := m.a.openSecrets(m.cfg)
			if err != nil {
				return fmt.Errorf("the keyring cannot be opened to keep it: %w", err)
			}
			kr = k
		}
		return kr.Set(ctx, name, value)
	}
	added, failed := 0, 0
	for _, n := range names {
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
		if err := json.Unmarshal(entries[n], &e); err != nil {
			fmt.Fprintf(m.a.stdout, "✗ %s: not a server entry: %v\n", n, err)
			failed++
			continue
		}
		s := store.MCPServer{Name: importName(n), Command: e.Command, Args: e.Args, Env: e.Env, Cwd: e.Cwd, URL: e.URL, Headers: e.Headers, Enabled: true}
		switch strings.ToLower(e.Type) {
		case "sse":
			s.Transport = mcphost.SSE
		case "http", "streamable-http", "streamablehttp":
			s.Transport = mcphost.StreamableHTTP
		}
		if e.Timeout > 0 {
			s.Timeout = time.Duration(e.Timeout * float64(time.Second))
		}
		// Secrets written into the file move to the keyring.
		moved, err := moveSecrets(&s, keep)
		if err != nil {
			fmt.Fprintf(m.a.stdout, "✗ %s: %v\n", n, err)
			failed++
			continue
		}
		for _, mv := range moved {
			fmt.Fprintf(m.a.stdout, "  %s: moved the literal %s into the keyring as %s\n", n, mv[0], mv[1])
		}
		var out bytes.Buffer
		sub := m
		sub.a = &app{stdin: m.a.stdin, stdout: &out, stderr: m.a.stderr, getenv: m.a.getenv}
		if err := sub.add(ctx, s); err != nil {
			fmt.Fprintf(m.a.stdout, "✗ %s: %v\n", n, err)
			failed++
			continue
		}
		first, _, _ := strings.Cut(out.String(), "\n")
		fmt.Fprintf(m.a.stdout, "✓ %s\n", first)
		added++
	}
	fmt.Fprintf(m.a.stdout, "Imported %d of %d servers from %s.\n", added, len(names), file)
	if failed > 0 {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%d server(s) were not imported; see above", failed)
	}
	return nil
}

// importName makes another app's server key a valid jarvisbot name.
func importName(n string) string {
	n = strings.ToLower(strings.TrimSpace(n))
	n = regexp.MustCompile(`[^a-z0-9._-]+`).ReplaceAllString(n, "-")
	return strings.Trim(n, "-._")
}

// moveSecrets stores literal credentials of env and headers with keep
// (the keyring) and leaves ${NAME} references in their place.
func moveSecrets(s *store.MCPServer, keep func(name, value string) error) ([][2]string, error) {
	var moved [][2]string
	fix := func(kind string, vals map[string]string) error {
		for _, k := range sortedKeys(vals) {
			v := vals[k]
			if !plugins.LiteralSecret(k, v) {
				continue
			}
			ref := secretRef("MCP_" + s.Name + "_" + k)
			scheme := ""
			if sch, rest, ok := strings.Cut(v, " "); ok && kind == "header" && plugins.AuthScheme(sch) {
				scheme, v = sch+" ", strings.TrimSpace(rest)
			}
			if err := keep(ref, v); err != nil {
				return fmt.Errorf("%s %s holds a secret that could not be kept: %w", kind, k, err)
			}
			vals[k] = scheme + "${" + ref + "}"
			moved = append(moved, [2]string{kind + " " + k, ref})
		}
		return nil
	}
	if err := fix("env", s.Env); err != nil {
		return nil, err
	}
	if err := fix("header", s.Headers); err != nil {
		return nil, err
	}
	return moved, nil
}
