package speech

import (
	"regexp"
	"strings"
	"sync"
)

// markdown are the marks an answer's Markdown carries that a voice would
// read out: links (kept as their text), code fences, emphasis, headings,
// list bullets, quotes and tables' bars. Compiled at first use.
var markdown = sync.OnceValue(func() []struct {
	re   *regexp.Regexp
	with string
} {
	return []struct {
		re   *regexp.Regexp
		with string
	}{
		{regexp.MustCompile("(?m)^```.*$"), ""},
		{regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`), "$1"},
		{regexp.MustCompile(`(?m)^\s{0,3}(#{1,6}|>+|[-*+]|\d+[.)])\s+`), ""},
		{regexp.MustCompile(`(\*\*|__|\*|_|~~|` + "`" + `)([^*_~` + "`" + `\n]+)(\*\*|__|\*|_|~~|` + "`" + `)`), "$2"},
		{regexp.MustCompile(`(?m)^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$`), ""},
		{regexp.MustCompile(`\s*\|\s*`), ", "},
		{regexp.MustCompile(`\n{3,}`), "\n\n"},
	}
})

// Plain is an answer's Markdown as it should be spoken: the words, not the
// marks around them.
func Plain(md string) string {
	s := md
	for _, r := range markdown() {
		s = r.re.ReplaceAllString(s, r.with)
	}
	return strings.TrimSpace(s)
}
