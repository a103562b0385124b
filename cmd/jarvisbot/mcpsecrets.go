package main

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/secretref"
	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/secrets"
)

// A secretMove is a literal credential of a server's settings bound for
// the keyring: what it was (for the owner), the name it is kept under,
// and its value.
type secretMove struct {
	what, ref, value string
}

// maxRefBase bounds a generated keyring name before any "_2" suffix; the
// keyring takes 128 characters.
const maxRefBase = 100

// literals finds the literal credentials in a stored server's settings,
// with the one detection mcp.json files go through (plugins.Literals).
func literals(s store.MCPServer) []plugins.Literal {
	return plugins.Literals(plugins.MCPServer{Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, Headers: s.Headers})
}

// literalText is the text a literal sits in.
func literalText(s store.MCPServer, l plugins.Literal) string {
	switch l.Field {
	case plugins.FieldEnv:
		return s.Env[l.Key]
	case plugins.FieldHeader:
		return s.Headers[l.Key]
	case plugins.FieldArg:
		return s.Args[l.Index]
	}
	return s.URL
}

// rewrite returns s with the span of each literal replaced by what with
// returns for it. The spans are replaced from the last to the first, so
// that a replacement in the URL leaves the spans before it where they are.
func rewrite(s store.MCPServer, lits []plugins.Literal, with func(i int) string) store.MCPServer {
	s.Env, s.Headers, s.Args = maps.Clone(s.Env), maps.Clone(s.Headers), slices.Clone(s.Args)
	for i := len(lits) - 1; i >= 0; i-- {
		l := lits[i]
		text := literalText(s, l)
		text = text[:l.Start] + with(i) + text[l.End:]
		switch l.Field {
		case plugins.FieldEnv:
			s.Env[l.Key] = text
		case plugins.FieldHeader:
			s.Headers[l.Key] = text
		case plugins.FieldArg:
			s.Args[l.Index] = text
		default:
			s.URL = text
		}
	}
	return s
}

// describe names where a literal is, for the owner.
func describe(l plugins.Literal) string {
	switch {
	case l.Field == plugins.FieldEnv:
		return "env " + l.Key
	case l.Field == plugins.FieldHeader:
		return "header " + l.Key
	case l.Field == plugins.FieldArg && l.Name != "":
		return fmt.Sprintf("argument %d (%s)", l.Index+1, l.Name)
	case l.Field == plugins.FieldArg:
		return fmt.Sprintf("argument %d", l.Index+1)
	case l.UserInfo:
		return "user and password of the URL"
	}
	return "URL query parameter " + l.Name
}

// moveSecrets rewrites s so that every literal credential in its settings
// is a ${NAME} reference instead, and returns the values to keep in the
// keyring under those names; nothing is written. Names are MCP_SERVER_WHAT
// (MCP_GITHUB_GITHUB_TOKEN), with a suffix when taken says a name is in
// use. A URL's user and password become an "Authorization: Basic" header,
// which is what an HTTP client sends for them.
func moveSecrets(s *store.MCPServer, taken func(name string) bool) ([]secretMove, error) {
	lits := literals(*s)
	if len(lits) == 0 {
		return nil, nil
	}
	used := map[string]bool{}
	name := func(what string) string {
		base := secretRef("MCP_" + s.Name + "_" + what)
		if len(base) > maxRefBase {
			base = strings.TrimRight(base[:maxRefBase], "_")
		}
		ref := base
		for n := 2; used[ref] || taken(ref); n++ {
			ref = base + "_" + strconv.Itoa(n)
		}
		used[ref] = true
		return ref
	}
	moves := make([]secretMove, len(lits))
	for i, l := range lits {
		value := literalText(*s, l)[l.Start:l.End]
		what := l.Name
		switch {
		case l.UserInfo:
			u, err := url.Parse(s.URL)
			if err != nil || u.User == nil {
				return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "server %s: the user information of its URL cannot be read: write the URL without it, store the credential with jarvisbot secrets set NAME and add --header \"Authorization: Basic ${NAME}\"", s.Name)
			}
			for k := range s.Headers {
				if strings.EqualFold(k, "Authorization") {
					return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "server %s: its URL carries a user and password, and --header %s sets the Authorization header they would become: keep one. Drop the user and password from the URL, or drop the header (for a header, store the credential with jarvisbot secrets set NAME and write --header \"Authorization: Bearer ${NAME}\")", s.Name, k)
				}
			}
			pw, _ := u.User.Password()
			value = base64.StdEncoding.EncodeToString([]byte(u.User.Username() + ":" + pw))
			what = "Authorization"
		case l.Field == plugins.FieldArg && what == "":
			what = fmt.Sprintf("ARG%d", l.Index+1)
		}
		if strings.Contains(value, "${") {
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "%s of server %s mixes a literal credential with a ${NAME} reference, which cannot be split: store the whole value with jarvisbot secrets set NAME (it reads the value from stdin) and write ${NAME} in its place", describe(l), s.Name)
		}
		moves[i] = secretMove{what: describe(l), ref: name(what), value: value}
	}
	moved := rewrite(*s, lits, func(i int) string {
		if lits[i].UserInfo {
			return ""
		}
		return "${" + moves[i].ref + "}"
	})
	for i, l := range lits {
		if l.UserInfo {
			if moved.Headers == nil {
				moved.Headers = map[string]string{}
			}
			moved.Headers["Authorization"] = "Basic ${" + moves[i].ref + "}"
		}
	}
	// What the detection finds after the move would be a bug here; refuse
	// rather than store it.
	if left := literals(moved); len(left) > 0 {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "%s of server %s holds a credential jarvisbot cannot move to the keyring by itself: store it with jarvisbot secrets set NAME (it reads the value from stdin) and write ${NAME} in its place", describe(left[0]), s.Name)
	}
	*s = moved
	for _, mv := range moves {
		s.Secrets = append(s.Secrets, mv.ref)
	}
	return moves, nil
}

// redacted is s as it may be shown: a literal credential an older
// jarvisbot stored (or a hand edit) reads "***".
func redacted(s store.MCPServer) store.MCPServer {
	lits := literals(s)
	return rewrite(s, lits, func(i int) string {
		if lits[i].UserInfo {
			return "***@"
		}
		return "***"
	})
}

// redactText hides in text every literal credential of s: an error about
// a server may quote its settings.
func redactText(s store.MCPServer, text string) string {
	for _, l := range literals(s) {
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

// shownName is a stored server's name as it may be printed: one that no
// longer passes the checks may hold control characters, which are quoted.
func shownName(n string) string {
	if n == "" || strings.ContainsFunc(n, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) {
		return strconv.Quote(n)
	}
	return n
}

// refsOf lists the ${NAME} references in a server's settings.
func refsOf(s store.MCPServer) []string {
	texts := append([]string{s.Command, s.Cwd, s.URL}, s.Args...)
	texts = append(texts, slices.Collect(maps.Values(s.Env))...)
	texts = append(texts, slices.Collect(maps.Values(s.Headers))...)
	var out []string
	for _, t := range texts {
		out = append(out, secretref.Names(t)...)
	}
	return out
}

// secretsInUse says, for each keyring name that something other than the
// server being removed needs, what needs it: another MCP server, a CLI
// tool, or the config.
func (m mcpCmd) secretsInUse(ctx context.Context, except string) (map[string]string, error) {
	use := map[string]string{}
	servers, err := m.db.MCPServers(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range servers {
		if s.Name == except {
			continue
		}
		for _, n := range append(refsOf(s), s.Secrets...) {
			use[n] = "MCP server " + shownName(s.Name)
		}
	}
	tools, err := m.db.CLITools(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range tools {
		for _, v := range t.Env {
			for _, n := range secretref.Names(v) {
				use[n] = "CLI tool cli:" + t.Name
			}
		}
	}
	for name, p := range configSecrets(m.cfg) {
		use[name] = p
	}
	return use, nil
}

// configSecrets are the keyring names the config refers to, with where.
func configSecrets(cfg config.Config) map[string]string {
	out := map[string]string{}
	if n := cfg.Provider.APIKeySecret; n != "" {
		out[n] = "the config (provider.api_key_secret)"
	}
	for name, ag := range cfg.Agents {
		if n := ag.Provider.APIKeySecret; n != "" {
			out[n] = fmt.Sprintf("the config (agents.%s.provider.api_key_secret)", name)
		}
	}
	return out
}

// keyringNames opens the keyring and returns a function that reports the
// names in it, to keep a moved secret from taking an existing one's name.
func (m mcpCmd) keyringNames(ctx context.Context) (*secrets.Keyring, func(string) bool, error) {
	kr, err := m.a.openSecrets(m.cfg)
	if err != nil {
		return nil, nil, jarvisbot.Errorf(jarvisbot.ErrorCode(err), "literal secrets go to the keyring, which cannot be opened: %w", err)
	}
	names, err := kr.Names(ctx)
	if err != nil {
		return nil, nil, jarvisbot.Errorf(jarvisbot.ErrorCode(err), "literal secrets go to the keyring, which cannot be read: %w", err)
	}
	return kr, func(n string) bool { return slices.Contains(names, n) }, nil
}

// secretWriter is what keeping moved secrets needs of the keyring.
type secretWriter interface {
	Set(ctx context.Context, name, value string) error
	Delete(ctx context.Context, name string) error
}

// keep writes the moves to the keyring. On failure it deletes what it
// wrote, so that a failed command changes no secret; undo does the same
// for a caller that fails afterwards. A secret that cannot be deleted is
// named in the error, never left behind without a word.
func keep(ctx context.Context, kr secretWriter, moves []secretMove) (undo func() error, err error) {
	var written []string
	undo = func() error {
		var left []string
		var cause error
		for _, n := range written {
			if err := kr.Delete(context.WithoutCancel(ctx), n); err != nil && jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
				left = append(left, n)
				cause = err
			}
		}
		if len(left) > 0 {
			return jarvisbot.Errorf(jarvisbot.ErrorCode(cause), "the secrets written for it stay in the keyring: %s (%w); delete each with jarvisbot secrets delete NAME", strings.Join(left, ", "), cause)
		}
		return nil
	}
	for _, mv := range moves {
		if err := kr.Set(ctx, mv.ref, mv.value); err != nil {
			kept := jarvisbot.Errorf(jarvisbot.ErrorCode(err), "keeping the %s in the keyring as %s: %w", mv.what, mv.ref, err)
			if uerr := undo(); uerr != nil {
				return nil, errors.Join(kept, uerr)
			}
			return nil, kept
		}
		written = append(written, mv.ref)
	}
	return undo, nil
}
