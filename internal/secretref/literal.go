package secretref

import (
	"maps"
	"net/url"
	"slices"
	"strings"
	"unicode"
)

// Literal credentials: a secret written into settings where a ${NAME}
// reference belongs. A plugin's mcp.json is refused for one (P1, X3); the
// owner's MCP servers have each moved to the keyring when added, hidden
// when shown and withheld from an export (M1, X3). Both go through this one
// detection, so that what a plugin may not ship is what the owner's
// settings never keep.

// Settings are the parts of an MCP server's settings a credential may be
// written in.
type Settings struct {
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
}

// validHeaderName reports whether k is an HTTP header name (a token), so
// that only a "Name: value" argument counts as a header.
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

// SecretName reports whether an environment variable, header, flag or query
// parameter name says it carries a credential: API_KEY, X-Api-Key,
// accessToken, DB_PASSWORD. Names of files, ids and addresses of secrets
// (TOKEN_FILE, AWS_ACCESS_KEY_ID, TOKEN_URL) do not.
func SecretName(name string) bool {
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

// IsReference reports whether v holds no literal secret: it is empty or one
// ${NAME} reference, optionally after an auth scheme ("Bearer ${TOKEN}").
func IsReference(v string) bool {
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

// LooksLikeCredential reports whether v looks like a literal credential by
// its shape alone: "Bearer abc…", a service's token prefix, a private key,
// a JWT.
func LooksLikeCredential(v string) bool {
	v = strings.TrimSpace(v)
	if scheme, rest, ok := strings.Cut(v, " "); ok && authScheme(scheme) {
		rest = strings.TrimSpace(rest)
		return rest != "" && !IsReference(rest)
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

// LiteralSecret reports whether a value given for an environment variable,
// header or flag called name holds a literal credential rather than a
// ${NAME} reference: by its name ("API_KEY", "Authorization") or by its
// shape (a service's token prefix, "Bearer abc…", a JWT). Every place that
// writes MCP settings to disk uses it, so that a secret goes to the
// keyring instead.
func LiteralSecret(name, value string) bool {
	return SecretName(name) && !IsReference(value) || LooksLikeCredential(value)
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
	Form     Form
}

// A Form is how a Literal gives itself away.
type Form int

// The forms of a Literal.
const (
	FormShape  Form = iota // its shape: a token prefix, "Bearer …", a JWT
	FormNamed              // an env, header or query name that says credential
	FormFlag               // a flag whose name says credential
	FormHeader             // a "Name: value" header argument (mcp-remote --header)
	FormQuery              // a query parameter
	FormUser               // a URL's user information
)

// Literals finds every literal credential in a server's settings, in a
// fixed order (env and headers by name, then arguments, then the URL), so
// that whatever writes the settings to disk can move each to the keyring
// and leave a ${NAME} reference. The values are not checked for NUL bytes
// or control characters; that is the parser's job.
func Literals(s Settings) []Literal {
	var out []Literal
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		if v := s.Env[k]; LiteralSecret(k, v) {
			out = append(out, Literal{Field: FieldEnv, Key: k, Name: k, Start: 0, End: len(v), Form: FormNamed})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		v := s.Headers[k]
		if !LiteralSecret(k, v) {
			continue
		}
		start := 0
		if scheme, rest, ok := strings.Cut(v, " "); ok && authScheme(scheme) {
			start = len(v) - len(strings.TrimLeft(rest, " "))
		}
		out = append(out, Literal{Field: FieldHeader, Key: k, Name: k, Start: start, End: len(v), Form: FormNamed})
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
		if LooksLikeCredential(a) {
			l := Literal{Field: FieldArg, Index: i, At: i, End: len(a), Form: FormShape}
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
		if name, value, ok := strings.Cut(a, ":"); ok && validHeaderName(name) && SecretName(name) && !IsReference(strings.TrimSpace(value)) {
			v := strings.TrimSpace(value)
			start := len(a) - len(strings.TrimLeft(value, " "))
			if scheme, rest, ok := strings.Cut(v, " "); ok && authScheme(scheme) {
				start += len(v) - len(strings.TrimLeft(rest, " "))
			}
			out = append(out, Literal{Field: FieldArg, Index: i, At: i, Name: name, Start: start, End: len(strings.TrimRight(a, " ")), Form: FormHeader})
			continue
		}
		flag, ok := strings.CutPrefix(a, "-")
		name, value, hasValue := strings.Cut(strings.TrimLeft(flag, "-"), "=")
		if !ok || !SecretName(name) {
			// A connection string or URL given as an argument, or as
			// the value of a flag that does not say credential
			// ("--dsn=postgresql://me:pw@db/x", "host=db password=pw").
			out = append(out, textLiterals(i, a)...)
			continue
		}
		switch {
		case hasValue && value != "" && !IsReference(value):
			out = append(out, Literal{Field: FieldArg, Index: i, At: i, Name: name, Start: len(a) - len(value), End: len(a), Form: FormFlag})
		case !hasValue && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && args[i+1] != "" && !IsReference(args[i+1]) && !strings.ContainsRune(args[i+1], 0):
			out = append(out, Literal{Field: FieldArg, Index: i + 1, At: i, Name: name, End: len(args[i+1]), Form: FormFlag})
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
	lit := func(name string, start, end int, form Form) Literal {
		return Literal{Field: FieldArg, Index: index, At: index, Name: name, Start: start, End: end, Form: form}
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
			out = append(out, lit("password", from+start, from+end, FormUser))
		}
		for _, l := range queryLiterals(a[from:to]) {
			out = append(out, lit(l.Name, from+l.Start, from+l.End, FormQuery))
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
		if v := a[vs:ve]; SecretName(name) && v != "" && !IsReference(v) && !strings.Contains(v, "${") {
			out = append(out, lit(name, vs, ve, FormNamed))
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
	if pw == "" || IsReference(pw) || strings.Contains(pw, "${") {
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
				out = append(out, Literal{Field: FieldURL, Name: "Authorization", Start: i + 3, End: i + 3 + at + 1, UserInfo: true, Form: FormUser})
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
		if kerr == nil && verr == nil && ((SecretName(k) && v != "" && !IsReference(v)) || LooksLikeCredential(v)) {
			start := pos + len(rawKey) + 1
			out = append(out, Literal{Field: FieldURL, Name: k, Start: start, End: start + len(rawValue), Form: FormQuery})
		}
		pos += len(pair) + 1
	}
	return out
}
