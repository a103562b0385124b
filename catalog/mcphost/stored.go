package mcphost

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/secretref"
	"github.com/jarvisbot/jarvisbot/store"
)

// The owner's servers as the store keeps them (M1, X3): how a stored row
// becomes connection settings, how it may be shown (literal credentials
// hidden), and why it cannot run as stored. Literal credentials are found
// with the one detection mcp.json files go through (secretref.Literals).

// FromStored is the connection settings of a stored server.
func FromStored(s store.MCPServer) Server {
	return Server{Name: s.Name, Transport: s.Transport, Command: s.Command, Args: s.Args, Env: s.Env,
		Cwd: s.Cwd, URL: s.URL, Headers: s.Headers, Timeout: s.Timeout, Trusted: s.Trusted, Plugin: s.Plugin}
}

// ToolsJSON is a tool list as the store caches it; a list that cannot be
// written is cached as none, and read again when the server is reached.
func ToolsJSON(tools []catalog.SnapshotTool) []byte {
	b, err := json.Marshal(tools)
	if err != nil {
		return []byte("[]")
	}
	return b
}

// Literals finds the literal credentials in a stored server's settings.
func Literals(s store.MCPServer) []secretref.Literal {
	return secretref.Literals(secretref.Settings{Args: s.Args, Env: s.Env, URL: s.URL, Headers: s.Headers})
}

// literalText is the text a literal sits in.
func literalText(s store.MCPServer, l secretref.Literal) string {
	switch l.Field {
	case secretref.FieldEnv:
		return s.Env[l.Key]
	case secretref.FieldHeader:
		return s.Headers[l.Key]
	case secretref.FieldArg:
		return s.Args[l.Index]
	}
	return s.URL
}

// rewrite returns s with the span of each literal replaced by what with
// returns for it. The spans are replaced from the last to the first, so
// that a replacement in the URL leaves the spans before it where they are.
func rewrite(s store.MCPServer, lits []secretref.Literal, with func(i int) string) store.MCPServer {
	s.Env, s.Headers, s.Args = maps.Clone(s.Env), maps.Clone(s.Headers), slices.Clone(s.Args)
	for i := len(lits) - 1; i >= 0; i-- {
		l := lits[i]
		text := literalText(s, l)
		text = text[:l.Start] + with(i) + text[l.End:]
		switch l.Field {
		case secretref.FieldEnv:
			s.Env[l.Key] = text
		case secretref.FieldHeader:
			s.Headers[l.Key] = text
		case secretref.FieldArg:
			s.Args[l.Index] = text
		default:
			s.URL = text
		}
	}
	return s
}

// DescribeLiteral names where a literal is, for the owner.
func DescribeLiteral(l secretref.Literal) string {
	switch {
	case l.Field == secretref.FieldEnv:
		return "env " + l.Key
	case l.Field == secretref.FieldHeader:
		return "header " + l.Key
	case l.Field == secretref.FieldArg && l.Name != "":
		return fmt.Sprintf("argument %d (%s)", l.Index+1, l.Name)
	case l.Field == secretref.FieldArg:
		return fmt.Sprintf("argument %d", l.Index+1)
	case l.UserInfo:
		return "user and password of the URL"
	}
	return "URL query parameter " + l.Name
}

// Redacted is s as it may be shown: a literal credential an older
// jarvisbot stored (or a hand edit) reads "***".
func Redacted(s store.MCPServer) store.MCPServer {
	lits := Literals(s)
	return rewrite(s, lits, func(i int) string {
		if lits[i].UserInfo {
			return "***@"
		}
		return "***"
	})
}

// Withheld is s as it may leave this machine (an export): every literal
// credential in its arguments and URL is replaced by placeholder, and the
// list says which, for the reader ("argument 2 (password)"). Env and
// headers are the caller's: an export keeps only their references.
func Withheld(s store.MCPServer, placeholder string) (store.MCPServer, []string) {
	lits := slices.DeleteFunc(Literals(s), func(l secretref.Literal) bool {
		return l.Field == secretref.FieldEnv || l.Field == secretref.FieldHeader
	})
	what := make([]string, len(lits))
	for i, l := range lits {
		what[i] = DescribeLiteral(l)
	}
	return rewrite(s, lits, func(i int) string {
		if lits[i].UserInfo {
			return placeholder + "@"
		}
		return placeholder
	}), what
}

// RedactText hides in text every literal credential of s: an error about
// a server may quote its settings.
func RedactText(s store.MCPServer, text string) string {
	for _, l := range Literals(s) {
		v := literalText(s, l)[l.Start:l.End]
		if l.UserInfo {
			if u, err := url.Parse(s.URL); err == nil && u.User != nil {
				if pw, ok := u.User.Password(); ok && pw != "" {
					text = strings.ReplaceAll(text, pw, "***")
				}
			}
		}
		if v != "" {
			text = strings.ReplaceAll(text, v, "***")
		}
	}
	return text
}

// ShownName is a stored server's name as it may be printed: one that no
// longer passes the checks may hold control characters, which are quoted.
func ShownName(n string) string {
	if n == "" || strings.ContainsFunc(n, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) {
		return strconv.Quote(n)
	}
	return n
}

// Target is what a server is, as it may be shown: its command line or its
// URL, literal credentials hidden.
func Target(s store.MCPServer) string {
	s = Redacted(s)
	if s.Transport == Stdio || (s.Transport == "" && s.Command != "") {
		return strings.Join(append([]string{s.Command}, s.Args...), " ")
	}
	return s.URL
}

// RefsOf lists the ${NAME} references in a server's settings.
func RefsOf(s store.MCPServer) []string {
	texts := append([]string{s.Command, s.Cwd, s.URL}, s.Args...)
	texts = append(texts, slices.Collect(maps.Values(s.Env))...)
	texts = append(texts, slices.Collect(maps.Values(s.Headers))...)
	var out []string
	for _, t := range texts {
		out = append(out, secretref.Names(t)...)
	}
	return out
}

// Trouble says why a stored server cannot run as stored, and what to do,
// or "": a row that did not read whole, settings today's checks refuse or
// a literal secret an older jarvisbot stored (remove it and add it again),
// and with tools, a cached tool list the catalog refuses (list it again).
func Trouble(s store.MCPServer, tools bool) string {
	again := fmt.Sprintf(": remove it (jarvisbot mcp remove %s) and add it again", ShownName(s.Name))
	if s.Problem != "" {
		return s.Problem + again
	}
	hs := FromStored(s)
	if err := hs.Check(); err != nil {
		return RedactText(s, strings.TrimPrefix(err.Error(), "server "+s.Name+": ")) + again
	}
	if lits := Literals(s); len(lits) > 0 {
		return fmt.Sprintf("its %s holds a literal credential an older jarvisbot stored%s, which moves it to the keyring", DescribeLiteral(lits[0]), again)
	}
	if !tools {
		return ""
	}
	list, err := catalog.ReadStoredList(s.Tools)
	if err == nil {
		err = catalog.New().SetServer(catalog.Server{ID: s.Name, Trusted: s.Trusted, Connected: true}, list)
	}
	if err != nil {
		return fmt.Sprintf("its cached tool list is refused (%v): jarvisbot mcp list --check lists its tools again", err)
	}
	return ""
}

// SecretsInUse says, for each keyring name a stored server other than
// except or a CLI tool refers to (or a server had moved there), what
// needs it: removing except must not delete a secret something else uses.
func SecretsInUse(servers []store.MCPServer, tools []store.CLITool, except string) map[string]string {
	use := map[string]string{}
	for _, s := range servers {
		if s.Name == except {
			continue
		}
		for _, n := range append(RefsOf(s), s.Secrets...) {
			use[n] = "MCP server " + ShownName(s.Name)
		}
	}
	for _, t := range tools {
		for _, v := range t.Env {
			for _, n := range secretref.Names(v) {
				use[n] = "CLI tool cli:" + t.Name
			}
		}
	}
	return use
}
