package telegram

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// toHTML turns Markdown as models write it into Telegram's HTML
// (parse_mode HTML): **bold**, *italic* and _italic_, ~~strike~~, `code`,
// fenced blocks, [text](url) links, # headings as bold lines and bullets.
// Everything else is text, with &, < and > escaped. Inline formatting is
// matched within one line, so every line outside a code block is
// self-contained HTML and the splitter may cut between any two lines.
func toHTML(md string) string {
	md = strings.ReplaceAll(md, "\r\n", "\n")
	lines := strings.Split(md, "\n")
	out := make([]string, 0, len(lines))
	for i := 0; i < len(lines); i++ {
		fence, indent, lang, ok := openFence(lines[i])
		if !ok {
			out = append(out, inlineLine(lines[i]))
			continue
		}
		var code []string
		j := i + 1
		for ; j < len(lines) && !closesFence(lines[j], fence); j++ {
			code = append(code, dedent(lines[j], indent))
		}
		i = j // the closing fence, or past the end: an unclosed block runs to the end
		if body := strings.Join(code, "\n"); strings.TrimSpace(body) != "" {
			out = append(out, preBlock(lang, body))
		}
	}
	return strings.Trim(strings.Join(out, "\n"), "\n")
}

// openFence recognises ``` or ~~~ (three or more) with an optional info
// string whose first word is the language.
func openFence(line string) (fence string, indent int, lang string, ok bool) {
	trimmed := strings.TrimLeft(line, " ")
	indent = len(line) - len(trimmed)
	if indent > 3 || len(trimmed) < 3 || (trimmed[0] != '`' && trimmed[0] != '~') {
		return "", 0, "", false
	}
	n := 0
	for n < len(trimmed) && trimmed[n] == trimmed[0] {
		n++
	}
	if n < 3 {
		return "", 0, "", false
	}
	info := strings.TrimSpace(trimmed[n:])
	if trimmed[0] == '`' && strings.Contains(info, "`") {
		return "", 0, "", false // ```x``` on one line is a code span
	}
	if f := strings.Fields(info); len(f) > 0 {
		lang = strings.Map(func(r rune) rune {
			if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("+-_.#", r)) {
				return r
			}
			return -1
		}, f[0])
	}
	return trimmed[:n], indent, lang, true
}

func closesFence(line, fence string) bool {
	t := strings.TrimSpace(line)
	return len(t) >= len(fence) && strings.Trim(t, fence[:1]) == ""
}

// dedent removes up to n leading spaces, the fence's own indentation.
func dedent(line string, n int) string {
	for n > 0 && strings.HasPrefix(line, " ") {
		line, n = line[1:], n-1
	}
	return line
}

func preBlock(lang, code string) string {
	open := "<pre><code>"
	if lang != "" {
		open = `<pre><code class="language-` + escapeHTML(lang) + `">`
	}
	return open + escapeHTML(code) + "</code></pre>"
}

// inlineLine converts one line outside code blocks.
func inlineLine(line string) string {
	trimmed := strings.TrimLeft(line, " \t")
	indent := line[:len(line)-len(trimmed)]
	if h := strings.TrimLeft(trimmed, "#"); len(trimmed)-len(h) >= 1 && len(trimmed)-len(h) <= 6 &&
		(h == "" || h[0] == ' ' || h[0] == '\t') && len(indent) <= 3 {
		h = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(h), "#"))
		if h == "" {
			return ""
		}
		return "<b>" + inline(h) + "</b>"
	}
	if len(trimmed) >= 2 && strings.ContainsRune("-*+", rune(trimmed[0])) && (trimmed[1] == ' ' || trimmed[1] == '\t') {
		return indent + "• " + inline(strings.TrimLeft(trimmed[2:], " \t"))
	}
	return inline(line)
}

// span is a piece of converted text, or a run of emphasis delimiters
// waiting to learn whether it has a partner.
type span struct {
	html    string
	delim   byte // '*', '_' or '~'; 0 for html
	n       int
	open    bool // the run can open emphasis
	close   bool // the run can close emphasis
	partner int
}

// inline converts code spans, links and emphasis in s. Emphasis follows
// CommonMark's flanking rules closely enough for model output: a run
// opens when it is followed by a non-space, closes when preceded by one,
// and _ does not work inside words (snake_case stays as it is). Runs pair
// with the nearest open run of the same character and length; runs left
// without a partner are printed as they are.
func inline(s string) string {
	var spans []span
	var buf strings.Builder
	flush := func() {
		if buf.Len() > 0 {
			spans = append(spans, span{html: buf.String(), partner: -1})
			buf.Reset()
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			buf.WriteString(escapeHTML(s[i+1 : i+2]))
			i += 2
		case c == '`':
			n := runLen(s, i)
			end := closingTicks(s, i+n, n)
			if end < 0 {
				buf.WriteString(s[i : i+n])
				i += n
				continue
			}
			code := s[i+n : end]
			if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.TrimSpace(code) != "" {
				code = code[1 : len(code)-1]
			}
			buf.WriteString("<code>" + escapeHTML(code) + "</code>")
			i = end + n
		case c == '[':
			text, href, end, ok := link(s, i)
			if !ok {
				buf.WriteByte('[')
				i++
				continue
			}
			label := inline(text)
			if strings.TrimSpace(text) == "" {
				label = escapeHTML(href)
			}
			buf.WriteString(`<a href="` + escapeAttr(href) + `">` + label + "</a>")
			i = end
		case c == '*' || c == '_' || c == '~':
			n := runLen(s, i)
			if n > 3 || (c == '~' && n != 2) {
				buf.WriteString(s[i : i+n])
				i += n
				continue
			}
			before, _ := utf8.DecodeLastRuneInString(s[:i])
			if i == 0 {
				before = ' '
			}
			after := ' '
			if i+n < len(s) {
				after, _ = utf8.DecodeRuneInString(s[i+n:])
			}
			left := !unicode.IsSpace(after) && (!isPunct(after) || unicode.IsSpace(before) || isPunct(before))
			right := !unicode.IsSpace(before) && (!isPunct(before) || unicode.IsSpace(after) || isPunct(after))
			open, closing := left, right
			if c == '_' {
				open = left && (!right || isPunct(before))
				closing = right && (!left || isPunct(after))
			}
			flush()
			spans = append(spans, span{delim: c, n: n, open: open, close: closing, partner: -1})
			i += n
		default:
			_, size := utf8.DecodeRuneInString(s[i:])
			buf.WriteString(escapeHTML(s[i : i+size]))
			i += size
		}
	}
	flush()
	pairEmphasis(spans)

	var out strings.Builder
	for k, sp := range spans {
		switch {
		case sp.delim == 0:
			out.WriteString(sp.html)
		case sp.partner < 0:
			out.WriteString(strings.Repeat(string(sp.delim), sp.n))
		case sp.partner > k:
			out.WriteString(emphasisTags(sp.delim, sp.n, false))
		default:
			out.WriteString(emphasisTags(sp.delim, sp.n, true))
		}
	}
	return out.String()
}

// pairEmphasis matches closing runs with the nearest opening run of the
// same kind; openers skipped over stay unpaired, so the result nests.
func pairEmphasis(spans []span) {
	var stack []int
	for k := range spans {
		sp := &spans[k]
		if sp.delim == 0 {
			continue
		}
		matched := false
		if sp.close {
			for si := len(stack) - 1; si >= 0; si-- {
				o := stack[si]
				if spans[o].delim == sp.delim && spans[o].n == sp.n {
					spans[o].partner, sp.partner = k, o
					stack = stack[:si]
					matched = true
					break
				}
			}
		}
		if !matched && sp.open {
			stack = append(stack, k)
		}
	}
}

func emphasisTags(delim byte, n int, closing bool) string {
	var tags []string
	switch {
	case delim == '~':
		tags = []string{"s"}
	case n == 1:
		tags = []string{"i"}
	case n == 2:
		tags = []string{"b"}
	default:
		tags = []string{"b", "i"}
	}
	var b strings.Builder
	if closing {
		for i := len(tags) - 1; i >= 0; i-- {
			b.WriteString("</" + tags[i] + ">")
		}
	} else {
		for _, t := range tags {
			b.WriteString("<" + t + ">")
		}
	}
	return b.String()
}

func runLen(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == s[i] {
		n++
	}
	return n
}

// closingTicks finds a run of exactly n backticks at or after from.
func closingTicks(s string, from, n int) int {
	for i := from; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		m := runLen(s, i)
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

// link parses [text](url "title") at s[i] == '['. Only web, mail and tg:
// addresses become links; anything else stays text.
func link(s string, i int) (text, href string, end int, ok bool) {
	depth := 0
	j := i
	for ; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
			continue
		case '[':
			depth++
		case ']':
			depth--
		}
		if depth == 0 {
			break
		}
	}
	if j >= len(s) || j+1 >= len(s) || s[j+1] != '(' {
		return "", "", 0, false
	}
	text = s[i+1 : j]
	depth = 0
	k := j + 1
	for ; k < len(s); k++ {
		if s[k] == '(' {
			depth++
		} else if s[k] == ')' {
			depth--
			if depth == 0 {
				break
			}
		}
	}
	if k >= len(s) {
		return "", "", 0, false
	}
	dest := strings.TrimSpace(s[j+2 : k])
	if f := strings.Fields(dest); len(f) > 0 {
		dest = f[0]
	}
	dest = strings.TrimSuffix(strings.TrimPrefix(dest, "<"), ">")
	lower := strings.ToLower(dest)
	for _, scheme := range []string{"https://", "http://", "mailto:", "tg://"} {
		if strings.HasPrefix(lower, scheme) && len(dest) > len(scheme) {
			return text, dest, k + 1, true
		}
	}
	return "", "", 0, false
}

func isASCIIPunct(c byte) bool {
	return c < utf8.RuneSelf && c > ' ' && !('a' <= c && c <= 'z') && !('A' <= c && c <= 'Z') && !('0' <= c && c <= '9')
}

func isPunct(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) }

var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func escapeHTML(s string) string { return htmlEscaper.Replace(s) }

var attrEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

func escapeAttr(s string) string { return attrEscaper.Replace(s) }
