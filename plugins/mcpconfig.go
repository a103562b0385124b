package plugins

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"path"
	"strings"
	"unicode"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/jarvisbot/jarvisbot/catalog"

	"github.com/jarvisbot/jarvisbot/internal/secretref"
)

// The MCP transports a server entry may name.
const (
	TransportStdio          = "stdio"
	TransportStreamableHTTP = "streamable-http"
	TransportSSE            = "sse"
)

// MCPConfig is mcp.json: the MCP servers a plugin brings, in the
// "mcpServers" shape that Claude Desktop, Claude Code and Cursor use too.
type MCPConfig struct {
	Schema  string               `json:"$schema,omitempty"`
	Servers map[string]MCPServer `json:"mcpServers"`
}

// MCPServer is one server entry. Type is always set after parsing: an entry
// without one gets it from its fields (command → stdio, url → streamable
// HTTP), and "http" reads as streamable-http, as those apps do.
type MCPServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// keyringHint ends every message about a literal credential.
const keyringHint = "a plugin's files are package data anyone can read, so keep the secret in the OS keyring (the sign-in puts it there) and write a ${VAR} reference instead, e.g. \"Bearer ${GITHUB_TOKEN}\""

// ParseMCPConfig parses mcp.json. file names the file in every Problem.
// The configuration holds the entries that passed; invalid ones are left
// out and reported.
func ParseMCPConfig(file string, data []byte) (*MCPConfig, []Problem) {
	c := &checker{file: file}
	cfg := c.mcpConfig(data, newSchemas())
	return cfg, c.problems
}

// mcpConfig checks mcp.json against its schema (mcp.schema.json), then
// what a schema cannot say: server names (the catalog's rule), the
// transport an entry without type means (a warning), which fields belong
// to it, and each entry's command, folder, address and credentials.
func (c *checker) mcpConfig(data []byte, sch *schemas) *MCPConfig {
	raw, ok := c.document(data)
	if !ok {
		return nil
	}
	s, err := sch.mcp()
	if err != nil {
		c.fail("", "cannot be checked: %v", err)
		return nil
	}
	// Both checks belong to the schemas': what ships is checked by its
	// tests (shippedSchemas).
	if s != nil {
		order := c.duplicates(raw)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			c.fail("", "is not valid JSON: %v", err)
			return nil
		}
		c.schemaCheck(s, doc, order, nil)
	}
	top := members(raw)
	if top == nil {
		return nil
	}
	cfg := &MCPConfig{Servers: map[string]MCPServer{}}
	if v, ok := top["$schema"]; !ok {
		c.warn("$schema", "missing: other Agent Plugins apps reject the file without %q", MCPSchema)
	} else {
		_ = json.Unmarshal(v, &cfg.Schema) // a wrong value was reported by the schema
	}
	servers := members(top["mcpServers"])
	for _, name := range sortedKeys(servers) {
		f := field("mcpServers", name)
		if err := catalog.ValidServerName(name); err != nil {
			c.fail(f, "%v", err)
			continue
		}
		if srv, ok := c.server(f, servers[name]); ok {
			cfg.Servers[name] = srv
		}
	}
	return cfg
}

// server checks one entry beyond its schema; ok is false when the entry
// has a problem, the schema's included.
func (c *checker) server(f string, raw json.RawMessage) (MCPServer, bool) {
	var srv MCPServer
	fields := members(raw)
	if fields == nil {
		return srv, false
	}
	has := map[string]bool{}
	for k, v := range fields {
		has[k] = true
		var dst any
		switch k {
		case "type":
			dst = &srv.Type
		case "command":
			dst = &srv.Command
		case "args":
			dst = &srv.Args
		case "env":
			dst = &srv.Env
		case "cwd":
			dst = &srv.Cwd
		case "url":
			dst = &srv.URL
		case "headers":
			dst = &srv.Headers
		}
		if dst != nil {
			_ = json.Unmarshal(v, dst) // a wrong type was reported by the schema
		}
	}
	tf := field(f, "type")
	switch {
	case has["type"] && srv.Type == "http":
		c.warn(tf, "\"http\" read as %q, the name other Agent Plugins apps know", TransportStreamableHTTP)
		srv.Type = TransportStreamableHTTP
	case has["type"]:
	case has["command"] && has["url"]:
		c.fail(f, "has both command and url: set type to stdio or streamable-http")
	case has["command"]:
		c.warn(tf, "missing: read as stdio because the entry has a command; other Agent Plugins apps need \"type\": \"stdio\"")
		srv.Type = TransportStdio
	case has["url"]:
		c.warn(tf, "missing: read as %s because the entry has a url; other Agent Plugins apps need \"type\": %q", TransportStreamableHTTP, TransportStreamableHTTP)
		srv.Type = TransportStreamableHTTP
	default:
		c.fail(f, "has neither command (a local stdio server) nor url (a server on the web)")
	}

	switch srv.Type {
	case TransportStdio:
		for _, k := range []string{"url", "headers"} {
			if has[k] {
				c.fail(field(f, k), "belongs to an HTTP server, not a stdio one")
			}
		}
		if !has["command"] {
			c.fail(field(f, "command"), "missing: a stdio server needs the program to start, e.g. \"npx\" or \"./bin/server\"")
		} else if c.ok(field(f, "command")) {
			c.command(field(f, "command"), srv.Command)
		}
		c.args(field(f, "args"), srv.Args)
		for _, k := range sortedKeys(srv.Env) {
			c.envVar(field(field(f, "env"), k), k, srv.Env[k])
		}
		if has["cwd"] && c.ok(field(f, "cwd")) {
			c.cwd(field(f, "cwd"), srv.Cwd)
		}
	case TransportStreamableHTTP, TransportSSE:
		for _, k := range []string{"command", "args", "env", "cwd"} {
			if has[k] {
				c.fail(field(f, k), "belongs to a stdio server, not an HTTP one")
			}
		}
		uf := field(f, "url")
		if !has["url"] {
			c.fail(uf, "missing: an HTTP server needs its https address")
		} else if c.ok(uf) {
			if err := httpsURL(secretref.Shape(srv.URL), true); err != nil {
				c.fail(uf, "%v", err)
			} else if q := secretQuery(srv.URL); q != "" {
				c.fail(uf, "query parameter %q holds what looks like a credential; %s", q, keyringHint)
			}
		}
		c.headers(field(f, "headers"), srv.Headers)
	}
	return srv, !c.failedUnder(f)
}

// command checks that command is one executable token: a bare name found on
// PATH or a "./" path inside the plugin. The loader checks the file.
func (c *checker) command(f, cmd string) {
	switch {
	case cmd == "":
		c.fail(f, "is empty")
	case strings.HasPrefix(cmd, "./"):
		if !insideRoot(cmd) || strings.Contains(cmd, `\`) {
			c.fail(f, "%.80q leads out of the plugin folder", cmd)
		}
	case strings.ContainsAny(cmd, `/\`):
		c.fail(f, "%.80q must be a program name such as \"npx\" or a path inside the plugin starting with \"./\"", cmd)
	case strings.ContainsFunc(cmd, unicode.IsSpace) || strings.ContainsAny(cmd, "$;&|<>`'\"*?(){}") || hasControl(cmd):
		c.fail(f, "%.80q is not one program name: put arguments in \"args\" (no shell runs it)", cmd)
	}
}

func (c *checker) args(f string, args []string) {
	found := map[int]secretref.Literal{}
	for _, l := range secretref.Literals(secretref.Settings{Args: args}) {
		found[l.At] = l
	}
	for i := range args {
		g := fmt.Sprintf("%s[%d]", f, i)
		l, ok := found[i]
		switch {
		case !ok || !c.ok(g):
		case l.Form == secretref.FormHeader:
			c.fail(g, "passes a literal %s header; %s", l.Name, keyringHint)
		case l.Form == secretref.FormFlag:
			c.fail(g, "passes a literal value to the flag %q, which looks like a credential; %s", l.Name, keyringHint)
		default:
			c.fail(g, "looks like a literal credential; %s", keyringHint)
		}
	}
}

var reservedEnv = map[string]bool{"PLUGIN_ROOT": true, "PLUGIN_DATA": true}

func (c *checker) envVar(f, k, v string) {
	switch {
	case !c.ok(f): // the schema's rules for names and values
	case reservedEnv[strings.ToUpper(k)]:
		c.fail(f, "is set by jarvisbot itself for every plugin server")
	case secretref.SecretName(k) && !secretref.IsReference(v):
		c.fail(f, "holds a literal value for what looks like a credential; %s", keyringHint)
	case secretref.LooksLikeCredential(v):
		c.fail(f, "looks like a literal credential; %s", keyringHint)
	}
}

// cwd checks the three forms Agent Plugins allows: "./dir",
// "${PLUGIN_ROOT}[/dir]" and "${PLUGIN_DATA}[/dir]", each kept inside.
func (c *checker) cwd(f, dir string) {
	rest := ""
	switch {
	case strings.HasPrefix(dir, "./"):
		rest = dir
	case dir == "${PLUGIN_ROOT}" || dir == "${PLUGIN_DATA}":
		return
	case strings.HasPrefix(dir, "${PLUGIN_ROOT}/"):
		rest = "." + strings.TrimPrefix(dir, "${PLUGIN_ROOT}")
	case strings.HasPrefix(dir, "${PLUGIN_DATA}/"):
		rest = "." + strings.TrimPrefix(dir, "${PLUGIN_DATA}")
	default:
		c.fail(f, "%.80q must start with \"./\", \"${PLUGIN_ROOT}\" or \"${PLUGIN_DATA}\"", dir)
		return
	}
	if !insideRoot(rest) || strings.Contains(rest, `\`) {
		c.fail(f, "%.80q leads out of its folder", dir)
	}
}

func (c *checker) headers(f string, h map[string]string) {
	seen := map[string]string{}
	for _, k := range sortedKeys(h) {
		v := h[k]
		g := field(f, k)
		lower := strings.ToLower(k)
		switch {
		case !c.ok(g): // the schema's rules for names and values
		case seen[lower] != "":
			c.fail(g, "repeats header %q in another case", seen[lower])
		case secretref.SecretName(k) && !secretref.IsReference(v):
			c.fail(g, "holds a literal credential; %s", keyringHint)
		case secretref.LooksLikeCredential(v):
			c.fail(g, "looks like a literal credential; %s", keyringHint)
		}
		seen[lower] = k
	}
}

// httpsURL checks an endpoint or logo address: absolute, https (plain http
// only to this machine when loopback is true), no user info or fragment.
func httpsURL(s string, loopback bool) error {
	u, err := url.Parse(s)
	switch {
	case s == "":
		return fmt.Errorf("is empty")
	case err != nil:
		return fmt.Errorf("%.80q is not a URL", s)
	case u.Scheme == "" || u.Host == "" || u.Opaque != "":
		return fmt.Errorf("%.80q is not an absolute URL such as https://mcp.example.com/mcp", s)
	case u.User != nil:
		return fmt.Errorf("has user information before the host; %s", keyringHint)
	case u.Fragment != "" || strings.Contains(s, "#"):
		return fmt.Errorf("%.80q has a #fragment", s)
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && loopback && isLoopback(u.Hostname()):
		return nil
	case u.Scheme == "http":
		return fmt.Errorf("%.80q uses plain http: use https (http is only for localhost)", s)
	}
	return fmt.Errorf("%.80q is not an https URL", s)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// secretQuery returns the name of a query parameter that carries a
// credential, or "".
func secretQuery(s string) string {
	for _, l := range secretref.Literals(secretref.Settings{URL: s}) {
		if l.Form == secretref.FormQuery {
			return l.Name
		}
	}
	return ""
}

// insideRoot reports whether a "./" path stays inside its folder.
func insideRoot(p string) bool {
	clean := path.Clean(p)
	return clean != ".." && !strings.HasPrefix(clean, "../") && !path.IsAbs(clean)
}
