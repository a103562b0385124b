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
	"github.com/jarvisbot/jarvisbot/internal/sizelimit"

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
	order := c.duplicates(raw)
	s, err := sch.mcp()
	if err != nil {
		c.fail("", "cannot be checked: %v", err)
		return nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		c.fail("", "is not valid JSON: %v", err)
		return nil
	}
	c.schemaCheck(s, doc, order, nil)
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
	found := map[int]Literal{}
	for _, l := range argLiterals(args) {
		found[l.At] = l
	}
	for i := range args {
		g := fmt.Sprintf("%s[%d]", f, i)
		l, ok := found[i]
		switch {
		case !ok || !c.ok(g):
		case l.form == formHeader:
			c.fail(g, "passes a literal %s header; %s", l.Name, keyringHint)
		case l.form == formFlag:
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
	case secretName(k) && !isReference(v):
		c.fail(f, "holds a literal value for what looks like a credential; %s", keyringHint)
	case looksLikeCredential(v):
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
		case secretName(k) && !isReference(v):
			c.fail(g, "holds a literal credential; %s", keyringHint)
		case looksLikeCredential(v):
			c.fail(g, "looks like a literal credential; %s", keyringHint)
		}
		seen[lower] = k
	}
}

func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		b := k[i]
		if !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0) {
			return false
		}
	}
	return true
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
	for _, l := range urlLiterals(s) {
		if l.form == formQuery {
			return l.Name
		}
	}
	return ""
}

// secretName reports whether an environment variable, header, flag or query
// parameter name says it carries a credential: API_KEY, X-Api-Key,
// accessToken, DB_PASSWORD. Names of files, ids and addresses of secrets
// (TOKEN_FILE, AWS_ACCESS_KEY_ID, TOKEN_URL) do not.
func secretName(name string) bool {
	switch strings.ToLower(name) {
	case "authorization", "proxy-authorization", "cookie":
		return true
	}
	parts := strings.FieldsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	secret := false
	for _, p := range parts {
		p = strings.ToUpper(p)
		switch p {
		case "FILE", "PATH", "DIR", "ID", "URL", "URI", "NAME", "ENV", "VAR", "HEADER", "TYPE":
			return false
		case "PASS", "PASSWD", "CREDENTIAL", "CREDENTIALS":
			secret = true
		}
		for _, s := range []string{"TOKEN", "KEY", "SECRET", "PASSWORD"} {
			if strings.HasSuffix(p, s) {
				secret = true
			}
		}
	}
	return secret
}

// isReference reports whether v holds no literal secret: it is empty or one
// ${NAME} reference, optionally after an auth scheme ("Bearer ${TOKEN}").
func isReference(v string) bool {
	if v == "" {
		return true
	}
	if scheme, rest, ok := strings.Cut(v, " "); ok && authScheme(scheme) {
		v = strings.TrimLeft(rest, " ")
	}
	name, ok := strings.CutPrefix(v, "${")
	if !ok {
		return false
	}
	name, ok = strings.CutSuffix(name, "}")
	if !ok || name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		b := name[i]
		if !(b == '_' || b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || i > 0 && b >= '0' && b <= '9') {
			return false
		}
	}
	return true
}

func authScheme(s string) bool {
	switch strings.ToLower(s) {
	case "bearer", "basic", "token", "bot", "digest":
		return true
	}
	return false
}

// tokenPrefixes begin credentials that services issue; a value starting
// with one is a secret whatever its key is called.
var tokenPrefixes = []string{
	"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-",
	"xoxb-", "xoxp-", "xoxa-", "xoxs-", "xapp-",
	"sk-", "sk_live_", "sk_test_", "rk_live_", "rk_test_",
	"AKIA", "ASIA", "AIza", "hf_", "npm_", "pypi-", "lin_api_", "ntn_", "secret_",
}

// looksLikeCredential reports whether v looks like a literal credential by
// its shape alone: "Bearer abc…", a service's token prefix, a private key,
// a JWT.
func looksLikeCredential(v string) bool {
	v = strings.TrimSpace(v)
	if scheme, rest, ok := strings.Cut(v, " "); ok && authScheme(scheme) {
		rest = strings.TrimSpace(rest)
		return rest != "" && !isReference(rest)
	}
	if strings.Contains(v, "PRIVATE KEY-----") {
		return true
	}
	if i := strings.LastIndexByte(v, '='); i >= 0 && strings.HasPrefix(v, "-") {
		v = v[i+1:] // --flag=VALUE
	}
	if len(v) < 20 || strings.ContainsFunc(v, unicode.IsSpace) {
		return false
	}
	for _, p := range tokenPrefixes {
		if strings.HasPrefix(v, p) && tokenLike(v[len(p):]) {
			return true
		}
	}
	// A JWT: three base64url parts, the first a JSON header.
	if strings.HasPrefix(v, "eyJ") && strings.Count(v, ".") == 2 && tokenLike(strings.ReplaceAll(v, ".", "")) {
		return true
	}
	return false
}

// tokenLike reports whether s is made of the characters tokens use and is
// long enough to be one.
func tokenLike(s string) bool {
	if len(s) < 12 {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-') {
			return false
		}
	}
	return true
}

// insideRoot reports whether a "./" path stays inside its folder.
func insideRoot(p string) bool {
	clean := path.Clean(p)
	return clean != ".." && !strings.HasPrefix(clean, "../") && !path.IsAbs(clean)
}

// LiteralSecret reports whether a value given for an environment variable,
// header or flag called name holds a literal credential rather than a
// ${NAME} reference: by its name ("API_KEY", "Authorization") or by its
// shape (a service's token prefix, "Bearer abc…", a JWT). Every place that
// writes MCP settings to disk uses it, so that a secret goes to the
// keyring instead.
func LiteralSecret(name, value string) bool {
	return secretName(name) && !isReference(value) || looksLikeCredential(value)
}

// AuthScheme reports whether s is an HTTP auth scheme a credential follows
// ("Bearer", "Basic", "Token", "Bot", "Digest").
func AuthScheme(s string) bool { return authScheme(s) }

// ImportLimit is the size limit of an MCP configuration written for
// another app (Claude Desktop, Claude Code, Cursor, VS Code) that
// `jarvisbot mcp import` reads: the same as a plugin's own files.
func ImportLimit() sizelimit.Limit {
	return sizelimit.Limit{What: "an MCP configuration to import", Max: MaxFileSize, Hint: "is it the right file? It lists servers under \"mcpServers\" (or \"servers\")"}
}

// Where a Literal is.
const (
	FieldEnv    = "env"
	FieldHeader = "header"
	FieldArg    = "arg"
	FieldURL    = "url"
)

// A Literal is a credential written into an MCP server's settings where a
// ${NAME} reference belongs. Text[Start:End] of the field it is in is the
// secret alone: without a flag name, a header name or an auth scheme
// before it.
type Literal struct {
	Field string // FieldEnv, FieldHeader, FieldArg or FieldURL
	Key   string // FieldEnv and FieldHeader: the variable or header
	Index int    // FieldArg: the argument that holds the value
	At    int    // FieldArg: the argument that gives it away (a flag before its value)
	// Name is what the value is called: the variable, the header, the
	// flag or the query parameter; "Authorization" for a URL's user
	// information; "" when only its shape gives it away.
	Name       string
	Start, End int
	// UserInfo marks a URL's "user:password@": Start and End cover all of
	// it, "@" included, and the credential is both parts.
	UserInfo bool
	form     int
}

// How a Literal gives itself away.
const (
	formShape  = iota // its shape: a token prefix, "Bearer …", a JWT
	formNamed         // an env, header or query name that says credential
	formFlag          // a flag whose name says credential
	formHeader        // a "Name: value" header argument (mcp-remote --header)
	formQuery         // a query parameter
	formUser          // a URL's user information
)

// Literals finds every literal credential in a server's settings, in a
// fixed order (env and headers by name, then arguments, then the URL), so
// that whatever writes the settings to disk can move each to the keyring
// and leave a ${NAME} reference. The values are not checked for NUL bytes
// or control characters; that is the parser's job.
func Literals(s MCPServer) []Literal {
	var out []Literal
	for _, k := range sortedKeys(s.Env) {
		if v := s.Env[k]; LiteralSecret(k, v) {
			out = append(out, Literal{Field: FieldEnv, Key: k, Name: k, Start: 0, End: len(v), form: formNamed})
		}
	}
	for _, k := range sortedKeys(s.Headers) {
		v := s.Headers[k]
		if !LiteralSecret(k, v) {
			continue
		}
		start := 0
		if scheme, rest, ok := strings.Cut(v, " "); ok && authScheme(scheme) {
			start = len(v) - len(strings.TrimLeft(rest, " "))
		}
		out = append(out, Literal{Field: FieldHeader, Key: k, Name: k, Start: start, End: len(v), form: formNamed})
	}
	out = append(out, argLiterals(s.Args)...)
	return append(out, urlLiterals(s.URL)...)
}

// argLiterals finds credentials on a command line: a token by its shape
// (alone, after "--flag=" or after an auth scheme), a "Name: value" header
// argument with a credential header's name, and a value given to a flag
// whose name says credential ("--api-key=…", "--password …").
func argLiterals(args []string) []Literal {
	var out []Literal
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.ContainsRune(a, 0) {
			continue
		}
		if looksLikeCredential(a) {
			l := Literal{Field: FieldArg, Index: i, At: i, End: len(a), form: formShape}
			trimmed := strings.TrimSpace(a)
			lead := strings.Index(a, trimmed)
			switch scheme, rest, ok := strings.Cut(trimmed, " "); {
			case ok && authScheme(scheme):
				l.Start = lead + len(trimmed) - len(strings.TrimLeft(rest, " "))
				l.End = lead + len(strings.TrimRight(trimmed, " "))
			case strings.HasPrefix(trimmed, "-") && strings.Contains(trimmed, "="):
				eq := strings.LastIndexByte(trimmed, '=')
				l.Name = strings.TrimLeft(trimmed[:strings.IndexByte(trimmed, '=')], "-")
				l.Start, l.End = lead+eq+1, lead+len(trimmed)
			default:
				l.Start, l.End = lead, lead+len(trimmed)
			}
			out = append(out, l)
			continue
		}
		// mcp-remote and friends take headers as "Name: value" arguments.
		if name, value, ok := strings.Cut(a, ":"); ok && validHeaderName(name) && secretName(name) && !isReference(strings.TrimSpace(value)) {
			v := strings.TrimSpace(value)
			start := len(a) - len(strings.TrimLeft(value, " "))
			if scheme, rest, ok := strings.Cut(v, " "); ok && authScheme(scheme) {
				start += len(v) - len(strings.TrimLeft(rest, " "))
			}
			out = append(out, Literal{Field: FieldArg, Index: i, At: i, Name: name, Start: start, End: len(strings.TrimRight(a, " ")), form: formHeader})
			continue
		}
		flag, ok := strings.CutPrefix(a, "-")
		name, value, hasValue := strings.Cut(strings.TrimLeft(flag, "-"), "=")
		if !ok || !secretName(name) {
			// A connection string or URL given as an argument, or as
			// the value of a flag that does not say credential
			// ("--dsn=postgresql://me:pw@db/x", "host=db password=pw").
			out = append(out, textLiterals(i, a)...)
			continue
		}
		switch {
		case hasValue && value != "" && !isReference(value):
			out = append(out, Literal{Field: FieldArg, Index: i, At: i, Name: name, Start: len(a) - len(value), End: len(a), form: formFlag})
		case !hasValue && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && args[i+1] != "" && !isReference(args[i+1]) && !strings.ContainsRune(args[i+1], 0):
			out = append(out, Literal{Field: FieldArg, Index: i + 1, At: i, Name: name, End: len(args[i+1]), form: formFlag})
			i++ // the value is this flag's, not an argument of its own
		}
	}
	return out
}

// textLiterals finds credentials in one argument that is, or holds, a
// URL or a connection string: the password of a URL's user information
// and its query parameters that carry one, or else "name=value" pairs
// (separated by spaces, ';' or '&', a value optionally quoted) whose
// name says credential ("password=pw", "Password='p w'", "API_KEY=k").
// The spans are in order, so that they can be replaced from the last.
func textLiterals(index int, a string) []Literal {
	lit := func(name string, start, end int, form int) Literal {
		return Literal{Field: FieldArg, Index: index, At: index, Name: name, Start: start, End: end, form: form}
	}
	if at := strings.Index(a, "://"); at > 0 {
		from := at
		for from > 0 && schemeChar(a[from-1]) {
			from--
		}
		to := len(a)
		if sp := strings.IndexFunc(a[from:], unicode.IsSpace); sp >= 0 {
			to = from + sp
		}
		var out []Literal
		if start, end, ok := userPassword(a[from:to]); ok {
			out = append(out, lit("password", from+start, from+end, formUser))
		}
		for _, l := range queryLiterals(a[from:to]) {
			out = append(out, lit(l.Name, from+l.Start, from+l.End, formQuery))
		}
		return out
	}
	var out []Literal
	for i := 0; i < len(a); {
		// A pair starts after a separator; its name runs to '='.
		for i < len(a) && pairSeparator(a[i]) {
			i++
		}
		start := i
		for i < len(a) && !pairSeparator(a[i]) && a[i] != '=' {
			i++
		}
		if i >= len(a) || a[i] != '=' {
			continue
		}
		name := strings.TrimLeft(a[start:i], "-")
		i++
		vs, ve := i, i
		if i < len(a) && (a[i] == '\'' || a[i] == '"') {
			q := a[i]
			vs = i + 1
			end := strings.IndexByte(a[vs:], q)
			if end < 0 {
				end = len(a) - vs
			}
			ve, i = vs+end, vs+end+1
		} else {
			for i < len(a) && !pairSeparator(a[i]) {
				i++
			}
			ve = i
		}
		if v := a[vs:ve]; secretName(name) && v != "" && !isReference(v) && !strings.Contains(v, "${") {
			out = append(out, lit(name, vs, ve, formNamed))
		}
	}
	return out
}

// pairSeparator ends a "name=value" pair of a connection string.
func pairSeparator(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == ';' || b == '&'
}

// schemeChar reports whether b may be part of a URL's scheme.
func schemeChar(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '+' || b == '.' || b == '-'
}

// userPassword finds the password of a URL's user information by the
// text alone ("scheme://user:PASSWORD@host"), so that a password that is
// a ${NAME} reference, which url.Parse refuses, is still recognised as
// one. An empty password, or one that is a reference, is none.
func userPassword(u string) (start, end int, ok bool) {
	i := strings.Index(u, "://")
	if i < 0 {
		return 0, 0, false
	}
	host := u[i+3:]
	if e := strings.IndexAny(host, "/?#"); e >= 0 {
		host = host[:e]
	}
	at := strings.LastIndexByte(host, '@')
	if at < 0 {
		return 0, 0, false
	}
	colon := strings.IndexByte(host[:at], ':')
	if colon < 0 {
		return 0, 0, false
	}
	pw := host[colon+1 : at]
	if pw == "" || isReference(pw) || strings.Contains(pw, "${") {
		return 0, 0, false
	}
	return i + 3 + colon + 1, i + 3 + at, true
}

// urlLiterals finds credentials in an address: its user information and
// the query parameters that carry one, by name (api_key, token) or shape.
// The spans are in the URL as written, still percent-encoded.
func urlLiterals(s string) []Literal {
	u, err := url.Parse(s)
	if err != nil || s == "" {
		return nil
	}
	var out []Literal
	if u.User != nil {
		if i := strings.Index(s, "://"); i >= 0 {
			if at := strings.IndexByte(s[i+3:], '@'); at >= 0 {
				out = append(out, Literal{Field: FieldURL, Name: "Authorization", Start: i + 3, End: i + 3 + at + 1, UserInfo: true, form: formUser})
			}
		}
	}
	return append(out, queryLiterals(s)...)
}

// queryLiterals finds the query parameters of an address that carry a
// credential, by name (api_key, token) or shape; the spans are of the
// values as written, still percent-encoded.
func queryLiterals(s string) []Literal {
	var out []Literal
	q := strings.IndexByte(s, '?')
	if q < 0 {
		return out
	}
	end := len(s)
	if h := strings.IndexByte(s, '#'); h > q {
		end = h
	}
	pos := q + 1
	for _, pair := range strings.Split(s[q+1:end], "&") {
		rawKey, rawValue, _ := strings.Cut(pair, "=")
		k, kerr := url.QueryUnescape(rawKey)
		v, verr := url.QueryUnescape(rawValue)
		if kerr == nil && verr == nil && ((secretName(k) && v != "" && !isReference(v)) || looksLikeCredential(v)) {
			start := pos + len(rawKey) + 1
			out = append(out, Literal{Field: FieldURL, Name: k, Start: start, End: start + len(rawValue), form: formQuery})
		}
		pos += len(pair) + 1
	}
	return out
}
