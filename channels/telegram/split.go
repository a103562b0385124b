package telegram

import (
	"html"
	"strings"
	"unicode/utf8"
)

// maxText is Telegram's limit for one message: 4096 characters after
// entity parsing, counted (like entity offsets) in UTF-16 code units.
const maxText = 4096

// token is one atom of our HTML: a tag, an entity or a character. Cuts
// fall only between tokens.
type token struct {
	s    string
	tag  string // the tag's name for tags ("b", "pre"), else ""
	end  bool   // a closing tag
	size int    // what the reader sees, in UTF-16 units
}

func tokenize(h string) []token {
	toks := make([]token, 0, len(h))
	for i := 0; i < len(h); {
		switch h[i] {
		case '<':
			j := strings.IndexByte(h[i:], '>')
			if j < 0 {
				j = len(h) - i - 1
			}
			s := h[i : i+j+1]
			name := strings.TrimPrefix(strings.Trim(s, "<>"), "/")
			if k := strings.IndexAny(name, " \t\n"); k >= 0 {
				name = name[:k]
			}
			toks = append(toks, token{s: s, tag: name, end: strings.HasPrefix(s, "</")})
			i += j + 1
		case '&':
			if j := strings.IndexByte(h[i:], ';'); j > 0 && j <= 8 {
				toks = append(toks, token{s: h[i : i+j+1], size: 1})
				i += j + 1
				continue
			}
			toks = append(toks, token{s: "&", size: 1})
			i++
		default:
			r, n := utf8.DecodeRuneInString(h[i:])
			size := 1
			if r > 0xFFFF {
				size = 2
			}
			toks = append(toks, token{s: h[i : i+n], size: size})
			i += n
		}
	}
	return toks
}

// frame is the stack of tags open at a point, shared between points.
type frame struct {
	open   token
	parent *frame
}

func (f *frame) has(tag string) bool {
	for ; f != nil; f = f.parent {
		if f.open.tag == tag {
			return true
		}
	}
	return false
}

func (f *frame) reopen() string {
	if f == nil {
		return ""
	}
	return f.parent.reopen() + f.open.s
}

func (f *frame) closers() string {
	var b strings.Builder
	for ; f != nil; f = f.parent {
		b.WriteString("</" + f.open.tag + ">")
	}
	return b.String()
}

// splitHTML cuts converted text into messages of at most limit visible
// characters. It cuts at a paragraph break or the edge of a code block
// when one lies in the second half of the room, else at a line break,
// else at a space, else anywhere between characters. A code block that
// fits in one message is never cut: the message ends before it. A block
// too long for any message is cut between its lines, each piece a closed
// <pre> of its own; tags open at a cut are closed and reopened.
func splitHTML(h string, limit int) []string {
	toks := tokenize(h)
	n := len(toks)
	// stack[p], cum[p]: the open tags and the visible length before toks[p].
	stack := make([]*frame, n+1)
	cum := make([]int, n+1)
	var cur *frame
	for p, t := range toks {
		stack[p] = cur
		switch {
		case t.tag != "" && t.end:
			if cur != nil {
				cur = cur.parent
			}
		case t.tag != "":
			cur = &frame{open: t, parent: cur}
		}
		cum[p+1] = cum[p] + t.size
	}
	stack[n] = cur
	isNL := func(p int) bool { return p >= 0 && p < n && toks[p].s == "\n" }
	inPre := func(p int) bool { return stack[p].has("pre") }

	var parts []string
	for s := 0; s < n; {
		for s < n && isNL(s) { // a part never starts with blank lines
			s++
		}
		if s == n {
			break
		}
		w := s
		for w < n && cum[w+1]-cum[s] <= limit {
			w++
		}
		c := w
		if w < n {
			c = max(cutPoint(toks, stack, cum, s, w, limit, inPre, isNL), s+1)
		}
		end := c
		for end > s && (isNL(end-1) || toks[end-1].s == " ") && !(toks[end-1].s == " " && inPre(end-1)) {
			end--
		}
		var b strings.Builder
		b.WriteString(stack[s].reopen())
		for _, t := range toks[s:end] {
			b.WriteString(t.s)
		}
		b.WriteString(stack[end].closers())
		if part := b.String(); strings.TrimSpace(visibleText(part)) != "" {
			parts = append(parts, part)
		}
		s = c
	}
	return parts
}

// cutPoint picks where the part that starts at s ends; w is the furthest
// token boundary that still fits.
func cutPoint(toks []token, stack []*frame, cum []int, s, w, limit int, inPre func(int) bool, isNL func(int) bool) int {
	n := len(toks)
	bound := w
	if inPre(w) {
		b0 := w
		for b0 > 0 && !(toks[b0].tag == "pre" && !toks[b0].end) {
			b0--
		}
		b1 := w
		for b1 < n && !(toks[b1].tag == "pre" && toks[b1].end) {
			b1++
		}
		fitsAlone := b1 < n && cum[b1+1]-cum[b0] <= limit
		if b0 <= s || !fitsAlone {
			// Cut inside the block, between lines if we can.
			from := max(s, b0) + 1
			for p := w; p > from; p-- {
				if isNL(p-1) && inPre(p) {
					return p
				}
			}
			if b0 > s {
				return b0
			}
			return w
		}
		bound = b0 // the block starts the next message
	}
	para := func(p int) bool {
		if inPre(p) {
			return false
		}
		return (isNL(p-1) && isNL(p-2)) || (p < n && toks[p].tag == "pre" && !toks[p].end) ||
			(p > 0 && toks[p-1].tag == "pre" && toks[p-1].end)
	}
	line := func(p int) bool { return !inPre(p) && isNL(p-1) }
	space := func(p int) bool { return !inPre(p) && p > 0 && toks[p-1].s == " " }
	half := cum[s] + limit/2
	last := func(ok func(int) bool, floor int) int {
		for p := bound; p > s; p-- {
			if cum[p] < floor {
				break
			}
			if ok(p) {
				return p
			}
		}
		return -1
	}
	for _, try := range []struct {
		ok    func(int) bool
		floor int
	}{{para, half}, {line, half}, {para, 0}, {line, 0}, {space, 0}} {
		if p := last(try.ok, try.floor); p > 0 {
			return p
		}
	}
	return bound
}

// visibleText is what Telegram shows for our HTML: the text without tags,
// entities decoded. It is also the plain fallback when Telegram refuses
// the HTML.
func visibleText(h string) string {
	var b strings.Builder
	for _, t := range tokenize(h) {
		if t.tag == "" {
			b.WriteString(t.s)
		}
	}
	return html.UnescapeString(b.String())
}
