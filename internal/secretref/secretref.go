// Package secretref resolves "${NAME}" references in settings (MCP server
// env, headers, arguments and URL, CLI tool env): the settings on disk name
// a secret, the keyring or the environment holds its value. It also finds
// the literal credentials written where a reference belongs (X3).
package secretref

import (
	"regexp"
	"slices"
	"sync"
)

var reference = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`) })

// Expand replaces every ${NAME} in v with lookup(NAME). It returns the
// first name lookup does not know, and then the value is not to be used.
func Expand(v string, lookup func(name string) (string, bool)) (out, missing string) {
	out = reference().ReplaceAllStringFunc(v, func(m string) string {
		name := m[2 : len(m)-1]
		if lookup != nil {
			if val, ok := lookup(name); ok {
				return val
			}
		}
		if missing == "" {
			missing = name
		}
		return ""
	})
	return out, missing
}

// Names returns the names v refers to, in order, each once: what a setting
// needs from the keyring, and what keeps a secret in use.
func Names(v string) []string {
	var out []string
	for _, m := range reference().FindAllStringSubmatch(v, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// placeholder stands for a reference's value where only the shape of a
// setting is checked: a valid host name and path segment.
const placeholder = "ref.invalid"

// Shape returns v with every reference replaced by a placeholder, so a URL
// whose host is a reference ("https://${HA_HOST}/api/mcp") can be checked
// for its scheme and form before the value is known.
func Shape(v string) string {
	out, _ := Expand(v, func(string) (string, bool) { return placeholder, true })
	return out
}
