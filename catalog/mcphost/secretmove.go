package mcphost

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/secretref"
	"github.com/jarvisbot/jarvisbot/store"
)

// Literal credentials typed into a server's settings go to the keyring
// (X3): the settings keep a ${NAME} reference, the store never sees the
// value.

// A SecretMove is a literal credential of a server's settings bound for
// the keyring: what it was (for the owner), the name it is kept under,
// and its value.
type SecretMove struct {
	What, Ref, Value string
}

// maxRefBase bounds a generated keyring name before any "_2" suffix; the
// keyring takes 128 characters.
const maxRefBase = 100

var nonRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_]+`) }) // built when a secret moves

// SecretRef turns a name into one a ${NAME} reference can hold.
func SecretRef(s string) string {
	return strings.Trim(strings.ToUpper(nonRef().ReplaceAllString(s, "_")), "_")
}

// MoveSecrets rewrites s so that every literal credential in its settings
// is a ${NAME} reference instead, and returns the values to keep in the
// keyring under those names; nothing is written. Names are MCP_SERVER_WHAT
// (MCP_GITHUB_GITHUB_TOKEN), with a suffix when taken says a name is in
// use. A URL's user and password become an "Authorization: Basic" header,
// which is what an HTTP client sends for them.
func MoveSecrets(s *store.MCPServer, taken func(name string) bool) ([]SecretMove, error) {
	lits := Literals(*s)
	if len(lits) == 0 {
		return nil, nil
	}
	name := refNamer(s.Name, taken)
	moves := make([]SecretMove, len(lits))
	for i, l := range lits {
		value, what, err := literalValue(*s, l)
		if err != nil {
			return nil, err
		}
		moves[i] = SecretMove{What: DescribeLiteral(l), Ref: name(what), Value: value}
	}
	moved := rewrite(*s, lits, func(i int) string {
		if lits[i].UserInfo {
			return ""
		}
		return "${" + moves[i].Ref + "}"
	})
	for i, l := range lits {
		if l.UserInfo {
			if moved.Headers == nil {
				moved.Headers = map[string]string{}
			}
			moved.Headers["Authorization"] = "Basic ${" + moves[i].Ref + "}"
		}
	}
	// What the detection finds after the move would be a bug here; refuse
	// rather than store it.
	if left := Literals(moved); len(left) > 0 {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "%s of server %s holds a credential jarvisbot cannot move to the keyring by itself: store it with jarvisbot secrets set NAME (it reads the value from stdin) and write ${NAME} in its place", DescribeLiteral(left[0]), s.Name)
	}
	*s = moved
	for _, mv := range moves {
		s.Secrets = append(s.Secrets, mv.Ref)
	}
	return moves, nil
}

// refNamer names the keyring entries of one server's moves, each once.
func refNamer(server string, taken func(string) bool) func(what string) string {
	used := map[string]bool{}
	return func(what string) string {
		base := SecretRef("MCP_" + server + "_" + what)
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
}

// literalValue is the value a literal moves to the keyring and what it is
// called in the keyring name.
func literalValue(s store.MCPServer, l secretref.Literal) (value, what string, err error) {
	value, what = literalText(s, l)[l.Start:l.End], l.Name
	switch {
	case l.UserInfo:
		u, err := url.Parse(s.URL)
		if err != nil || u.User == nil {
			return "", "", jarvisbot.Errorf(jarvisbot.EINVALID, "server %s: the user information of its URL cannot be read: write the URL without it, store the credential with jarvisbot secrets set NAME and add --header \"Authorization: Basic ${NAME}\"", s.Name)
		}
		for k := range s.Headers {
			if strings.EqualFold(k, "Authorization") {
				return "", "", jarvisbot.Errorf(jarvisbot.EINVALID, "server %s: its URL carries a user and password, and --header %s sets the Authorization header they would become: keep one. Drop the user and password from the URL, or drop the header (for a header, store the credential with jarvisbot secrets set NAME and write --header \"Authorization: Bearer ${NAME}\")", s.Name, k)
			}
		}
		pw, _ := u.User.Password()
		value = base64.StdEncoding.EncodeToString([]byte(u.User.Username() + ":" + pw))
		what = "Authorization"
	case l.Field == secretref.FieldArg && what == "":
		what = fmt.Sprintf("ARG%d", l.Index+1)
	}
	if strings.Contains(value, "${") {
		return "", "", jarvisbot.Errorf(jarvisbot.EINVALID, "%s of server %s mixes a literal credential with a ${NAME} reference, which cannot be split: store the whole value with jarvisbot secrets set NAME (it reads the value from stdin) and write ${NAME} in its place", DescribeLiteral(l), s.Name)
	}
	return value, what, nil
}

// RefuseLiterals refuses settings that would put a credential on disk
// where no keyring move applies (a CLI tool's environment).
func RefuseLiterals(s store.MCPServer) error {
	for _, l := range Literals(s) {
		switch l.Field {
		case secretref.FieldEnv, secretref.FieldHeader:
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s of %s holds a literal credential: jarvisbot keeps secrets only in the keyring. Run jarvisbot secrets set NAME (it reads the value from stdin) and write ${NAME} instead, e.g. %s", DescribeLiteral(l), s.Name, example(l.Field, l.Key))
		default:
			return jarvisbot.Errorf(jarvisbot.EINVALID, "the %s of %s holds a literal credential: store it with jarvisbot secrets set NAME (it reads the value from stdin) and write ${NAME} in its place", DescribeLiteral(l), s.Name)
		}
	}
	return nil
}

func example(kind, k string) string {
	if kind == "header" {
		return fmt.Sprintf("--header \"%s: Bearer ${%s}\"", k, SecretRef(k))
	}
	return fmt.Sprintf("--env %s=${%s}", k, SecretRef(k))
}

// SecretWriter is what keeping moved secrets needs of the keyring.
type SecretWriter interface {
	Set(ctx context.Context, name, value string) error
	Delete(ctx context.Context, name string) error
}

// KeepSecrets writes the moves to the keyring. On failure it deletes what
// it wrote, so that a failed command changes no secret; undo does the
// same for a caller that fails afterwards. A secret that cannot be deleted
// is named in the error, never left behind without a word.
func KeepSecrets(ctx context.Context, kr SecretWriter, moves []SecretMove) (undo func() error, err error) {
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
		if err := kr.Set(ctx, mv.Ref, mv.Value); err != nil {
			kept := jarvisbot.Errorf(jarvisbot.ErrorCode(err), "keeping the %s in the keyring as %s: %w", mv.What, mv.Ref, err)
			if uerr := undo(); uerr != nil {
				return nil, errors.Join(kept, uerr)
			}
			return nil, kept
		}
		written = append(written, mv.Ref)
	}
	return undo, nil
}
