package visible

import (
	"regexp"
	"strings"
	"sync"
)

// Text from outside that reaches a chat (an app's notice to the owner, X5)
// must not carry live links: a chat app turns "https://…" and
// "name.example" into links, and a tap on one an app wrote looks like a
// tap on jarvisbot's own. The usual way to show an address without its
// link ("defanging") keeps it readable: https[:]//evil[.]example.
//
// A word that starts with "/" or "@" is a command the owner's tap sends,
// or a profile it opens, in Telegram: "[/]pause", "[@]name" are not.
//
// The patterns are compiled when first used: most starts never show an
// app's text, and package init must not cost every start (X4).
var inertPatterns = sync.OnceValue(func() [3]*regexp.Regexp {
	return [3]*regexp.Regexp{
		regexp.MustCompile(`(?i)([a-z][a-z0-9+.-]*):(//)`),
		regexp.MustCompile(`(^|[\s(\[{"'])([/@])([A-Za-z0-9_])`),
		regexp.MustCompile(`(?i)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.[a-z]{2,}\b`),
	}
})

// Inert returns s as Text shows it, with every address written so that no
// chat app makes a link of it: "://" as "[:]//", the dots of a host name
// ("name.example", also in a mail address) as "[.]", and a word's leading
// "/" or "@" as "[/]" or "[@]".
func Inert(s string) string {
	p := inertPatterns()
	scheme, command, domain := p[0], p[1], p[2]
	s = scheme.ReplaceAllString(Text(s), "$1[:]$2")
	s = command.ReplaceAllString(s, "$1[$2]$3")
	return domain.ReplaceAllStringFunc(s, func(host string) string {
		return strings.ReplaceAll(host, ".", "[.]")
	})
}
