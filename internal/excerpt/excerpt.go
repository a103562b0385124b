// Package excerpt cuts a short passage out of a longer text for a search
// hit: the wiki's and the memory's snippets.
package excerpt

import (
	"strings"
	"unicode/utf8"
)

// Around returns text from about before bytes ahead of the byte offset at
// to about after bytes past it, on one line: cut at word boundaries, never
// through a rune, with "…" where text goes on.
func Around(text string, at, before, after int) string {
	at = min(max(at, 0), len(text))
	start, end := max(0, at-before), min(len(text), at+after)
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	// Cut at word boundaries rather than through words.
	if start > 0 {
		if i := strings.IndexAny(text[start:at], " \t\n"); i >= 0 {
			start += i + 1
		}
	}
	if end < len(text) {
		if i := strings.LastIndexAny(text[at:end], " \t\n"); i > 0 {
			end = at + i
		}
	}
	s := strings.Join(strings.Fields(text[start:end]), " ")
	if start > 0 {
		s = "…" + s
	}
	if end < len(text) {
		s += "…"
	}
	return s
}
