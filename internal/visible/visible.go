// Package visible makes text from outside safe to show in a terminal for
// consent (X2): a SKILL.md or a plugin is shown in full before it is
// installed, and what the owner reads must be what the file says. Escape
// sequences could clear the screen, move the cursor or recolour lines;
// bidi overrides reorder what is shown; zero-width characters hide words.
// Text replaces every such character with a visible escape, so nothing in
// the file can change how the rest of it looks. Inert does the same for
// text an app sends to the owner's chat, and shows its addresses and
// commands without links (X5).
package visible

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text returns s with every character that a terminal would not show as
// itself written as an escape: C0 and C1 controls other than newline and
// tab (ESC as \x1b, CR as \r), DEL, Unicode format characters (bidi
// overrides and isolates, zero-width spaces and joiners, the BOM, tag
// characters), blank fillers, line and paragraph separators, and bytes that are not
// UTF-8 (\xNN). Newlines and tabs are kept, so the text keeps its shape.
func Text(s string) string {
	if Count(s) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !hidden(r):
			b.WriteString(s[i : i+size])
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += size
	}
	return b.String()
}

// Count returns how many characters of s Text would escape, so that a view
// can say that the text holds some.
func Count(s string) int {
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || hidden(r) {
			n++
		}
		i += size
	}
	return n
}

// hidden reports whether a terminal would not show r as itself.
func hidden(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	}
	// Other_Default_Ignorable_Code_Point holds the blank letters (U+115F,
	// U+3164, U+FFA0) that render as nothing.
	return unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Other_Default_Ignorable_Code_Point)
}

// Line is Text for a place that shows one line (a row of a list, a chat
// button): newlines and tabs are written as \n and \t too, so a stored text
// can neither break the row nor move what follows it.
func Line(s string) string {
	s = Text(s)
	if !strings.ContainsAny(s, "\n\t") {
		return s
	}
	return strings.NewReplacer("\n", `\n`, "\t", `\t`).Replace(s)
}
