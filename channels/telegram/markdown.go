package telegram

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// toHTML turns Markdown as models write it into Telegram's HTML
// (parse_mode HTML). goldmark parses it as CommonMark (plus ~~strike~~),
// and htmlRenderer writes the subset Telegram accepts: b, i, s, code,
// pre with a language, a href and blockquote. Headings become bold lines,
// list items bullets or numbers; everything else (tables, raw HTML,
// images, rules) degrades to escaped text. Lines stay as the model wrote
// them, so the splitter can cut between any two.
//
// The parser is built per call: a few small allocations next to the HTTP
// request each message costs, and an idle service keeps no Markdown
// machinery in memory.
func toHTML(md string) string {
	src := []byte(strings.ReplaceAll(md, "\r\n", "\n"))
	p := parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(append(parser.DefaultInlineParsers(),
			util.Prioritized(strikeParser{}, 500))...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
	var b strings.Builder
	walk(p.Parse(text.NewReader(src)), func(n ast.Node, entering bool) ast.WalkStatus {
		render, ok := rendererFor(n.Kind())
		if !ok {
			return ast.WalkContinue // a kind with no tag of its own: its text
		}
		return render(&b, src, n, entering)
	})
	return strings.Trim(b.String(), "\n")
}

// walk is ast.Walk for visitors that cannot fail: Walk returns only the
// errors its visitor returns, so there is none to handle.
func walk(n ast.Node, visit func(n ast.Node, entering bool) ast.WalkStatus) {
	_ = ast.Walk(n, func(n ast.Node, entering bool) (ast.WalkStatus, error) { return visit(n, entering), nil })
}

// renderFunc writes one node of goldmark's tree as Telegram HTML, on the
// way in (entering) and on the way out.
type renderFunc func(w *strings.Builder, source []byte, n ast.Node, entering bool) ast.WalkStatus

// rendererFor is htmlRenderer's table: kinds it has no entry for render
// their children only, which is their text.
func rendererFor(k ast.NodeKind) (renderFunc, bool) {
	var r htmlRenderer
	switch k {
	case ast.KindParagraph, ast.KindTextBlock, ast.KindList:
		return r.block, true
	case ast.KindHeading:
		return r.heading, true
	case ast.KindThematicBreak:
		return r.rule, true
	case ast.KindBlockquote:
		return r.blockquote, true
	case ast.KindListItem:
		return r.listItem, true
	case ast.KindCodeBlock, ast.KindFencedCodeBlock:
		return r.codeBlock, true
	case ast.KindHTMLBlock:
		return r.htmlBlock, true
	case ast.KindText:
		return r.text, true
	case ast.KindString:
		return r.string, true
	case ast.KindCodeSpan:
		return r.codeSpan, true
	case ast.KindEmphasis, extast.KindStrikethrough:
		return r.emphasis, true
	case ast.KindLink:
		return r.link, true
	case ast.KindImage:
		return r.image, true
	case ast.KindAutoLink:
		return r.autoLink, true
	case ast.KindRawHTML:
		return r.rawHTML, true
	}
	return nil, false
}

// strikeParser reads ~~strike~~ (exactly two tildes, as GitHub's
// Markdown does; a single ~ is text). It stands in for goldmark's
// extension package, whose other extensions compile regular expressions
// at start-up that jarvisbot would never use.
type strikeParser struct{}

func (strikeParser) Trigger() []byte { return []byte{'~'} }

func (strikeParser) Parse(_ ast.Node, block text.Reader, pc parser.Context) ast.Node {
	before := block.PrecendingCharacter()
	line, segment := block.PeekLine()
	d := parser.ScanDelimiter(line, before, 2, strikeDelimiter{})
	if d == nil || d.OriginalLength != 2 || before == '~' {
		return nil
	}
	d.Segment = segment.WithStop(segment.Start + d.OriginalLength)
	block.Advance(d.OriginalLength)
	pc.PushDelimiter(d)
	return d
}

func (strikeParser) CloseBlock(ast.Node, parser.Context) {}

type strikeDelimiter struct{}

func (strikeDelimiter) IsDelimiter(b byte) bool { return b == '~' }

func (strikeDelimiter) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char
}

func (strikeDelimiter) OnMatch(int) ast.Node { return extast.NewStrikethrough() }

// htmlRenderer renders goldmark's tree as Telegram HTML.
type htmlRenderer struct{}

// separate starts a block on its own line, after a blank line when the
// source has one there. (goldmark's HasBlankPreviousLines also says so
// for a paragraph right after a closing fence; the source does not lie.)
func separate(w *strings.Builder, source []byte, n ast.Node) {
	if n.PreviousSibling() == nil {
		return
	}
	if blankBefore(n, source) {
		w.WriteString("\n\n")
		return
	}
	w.WriteByte('\n')
}

// blankBefore reports whether the line before n's first line is blank.
func blankBefore(n ast.Node, source []byte) bool {
	first := n
	for first != nil && first.Type() == ast.TypeBlock && first.Lines().Len() == 0 {
		first = first.FirstChild()
	}
	if first == nil || first.Type() != ast.TypeBlock {
		return n.HasBlankPreviousLines()
	}
	start := first.Lines().At(0).Start
	skip := 1 // the line before the first line
	if first.Kind() == ast.KindFencedCodeBlock {
		skip = 2 // its first line is the opening fence, not among its lines
	}
	var prev []byte
	for range skip {
		end := bytes.LastIndexByte(source[:start], '\n')
		if end < 0 {
			return false
		}
		start = bytes.LastIndexByte(source[:end], '\n') + 1
		prev = source[start:end]
	}
	return len(bytes.TrimSpace(prev)) == 0
}

func (htmlRenderer) block(w *strings.Builder, source []byte, n ast.Node, entering bool) ast.WalkStatus {
	if entering {
		separate(w, source, n)
	}
	return ast.WalkContinue
}

func (htmlRenderer) heading(w *strings.Builder, source []byte, n ast.Node, entering bool) ast.WalkStatus {
	if !n.HasChildren() {
		return ast.WalkSkipChildren
	}
	if entering {
		separate(w, source, n)
		w.WriteString("<b>")
	} else {
		w.WriteString("</b>")
	}
	return ast.WalkContinue
}

func (htmlRenderer) rule(w *strings.Builder, source []byte, n ast.Node, entering bool) ast.WalkStatus {
	if entering {
		separate(w, source, n)
		w.WriteString("———")
	}
	return ast.WalkContinue
}

func (htmlRenderer) blockquote(w *strings.Builder, source []byte, n ast.Node, entering bool) ast.WalkStatus {
	if entering {
		separate(w, source, n)
		w.WriteString("<blockquote>")
	} else {
		w.WriteString("</blockquote>")
	}
	return ast.WalkContinue
}

// listItem writes a bullet, or the item's number, indented two spaces
// for each list it sits in.
func (htmlRenderer) listItem(w *strings.Builder, source []byte, n ast.Node, entering bool) ast.WalkStatus {
	if !entering {
		return ast.WalkContinue
	}
	separate(w, source, n)
	depth := -1
	for p := n.Parent(); p != nil; p = p.Parent() {
		if p.Kind() == ast.KindList {
			depth++
		}
	}
	w.WriteString(strings.Repeat("  ", max(depth, 0)))
	list := n.Parent().(*ast.List)
	if !list.IsOrdered() {
		w.WriteString("• ")
		return ast.WalkContinue
	}
	num := list.Start
	for s := n.PreviousSibling(); s != nil; s = s.PreviousSibling() {
		num++
	}
	fmt.Fprintf(w, "%d%c ", num, list.Marker)
	return ast.WalkContinue
}

// codeBlock writes a fenced or indented block as <pre>, with the fence's
// language; a block with nothing in it is left out.
func (htmlRenderer) codeBlock(w *strings.Builder, source []byte, n ast.Node, entering bool) ast.WalkStatus {
	if !entering {
		return ast.WalkSkipChildren
	}
	body := strings.TrimSuffix(string(linesOf(n, source)), "\n")
	if strings.TrimSpace(body) == "" {
		return ast.WalkSkipChildren
	}
	separate(w, source, n)
	lang := ""
	if f, ok := n.(*ast.FencedCodeBlock); ok {
		lang = strings.Map(func(r rune) rune {
			if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("+-_.#", r)) {
				return r
			}
			return -1
		}, string(f.Language(source)))
	}
	if lang != "" {
		w.WriteString(`<pre><code class="language-` + lang + `">`)
	} else {
		w.WriteString("<pre><code>")
	}
	w.WriteString(escapeHTML(body))
	w.WriteString("</code></pre>")
	return ast.WalkSkipChildren
}

// htmlBlock writes raw HTML as the text it is.
func (htmlRenderer) htmlBlock(w *strings.Builder, source []byte, n ast.Node, entering bool) ast.WalkStatus {
	if !entering {
		return ast.WalkSkipChildren
	}
	separate(w, source, n)
	raw := linesOf(n, source)
	if h := n.(*ast.HTMLBlock); h.HasClosure() {
		raw = append(raw, h.ClosureLine.Value(source)...)
	}
	w.WriteString(escapeHTML(strings.TrimRight(string(raw), "\n")))
	return ast.WalkSkipChildren
}

func linesOf(n ast.Node, source []byte) []byte {
	var b []byte
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		b = append(b, seg.Value(source)...)
	}
	return b
}

func (htmlRenderer) text(w *strings.Builder, source []byte, n ast.Node, entering bool) ast.WalkStatus {
	if !entering {
		return ast.WalkContinue
	}
	t := n.(*ast.Text)
	v := t.Segment.Value(source)
	if !t.IsRaw() {
		v = unescape(v)
	}
	w.WriteString(escapeHTML(string(v)))
	if t.SoftLineBreak() || t.HardLineBreak() {
		w.WriteByte('\n')
	}
	return ast.WalkContinue
}

func (htmlRenderer) string(w *strings.Builder, source []byte, n ast.Node, entering bool) ast.WalkStatus {
	if entering {
		w.WriteString(escapeHTML(string(n.(*ast.String).Value)))
	}
	return ast.WalkContinue
}

// unescape resolves backslash escapes and character references, as
// CommonMark reads text and link destinations.
func unescape(v []byte) []byte {
	return util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
}

func (htmlRenderer) codeSpan(w *strings.Builder, source []byte, n ast.Node, entering bool) ast.WalkStatus {
	if !entering {
		return ast.WalkSkipChildren
	}
	w.WriteString("<code>")
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		t, ok := c.(*ast.Text)
		if !ok {
			continue
		}
		v := string(t.Segment.Value(source))
		if s, ok := strings.CutSuffix(v, "\n"); ok { // a line end in a code span is a space
			v = s + " "
		}
		w.WriteString(escapeHTML(v))
	}
	w.WriteString("</code>")
	return ast.WalkSkipChildren
}

// emphasis writes *it*, **bold**, ***both*** and ~~strike~~ as i, b,
// b+i and s. Emphasis that spans a line break is left as the model typed
// it: models put a lone * at the start of lines as a bullet far more
// often than they emphasise across lines, and it keeps every line whole.
func (htmlRenderer) emphasis(w *strings.Builder, source []byte, n ast.Node, entering bool) ast.WalkStatus {
	if spansLines(n) {
		d := delimiters(n, source)
		w.WriteString(d)
		return ast.WalkContinue
	}
	if outer, ok := n.Parent().(*ast.Emphasis); ok && isBoldItalic(outer) {
		return ast.WalkContinue // the outer node writes both tags
	}
	var open, end string
	switch e := n.(type) {
	case *ast.Emphasis:
		switch {
		case isBoldItalic(e):
			open, end = "<b><i>", "</i></b>"
		case e.Level >= 2:
			open, end = "<b>", "</b>"
		default:
			open, end = "<i>", "</i>"
		}
	default:
		open, end = "<s>", "</s>"
	}
	if entering {
		w.WriteString(open)
	} else {
		w.WriteString(end)
	}
	return ast.WalkContinue
}

// isBoldItalic reports whether e is ***x***: goldmark nests strong inside
// emphasis; Telegram users read <b><i>.
func isBoldItalic(e *ast.Emphasis) bool {
	inner, ok := e.FirstChild().(*ast.Emphasis)
	return ok && e.Level == 1 && e.ChildCount() == 1 && inner.Level == 2 && !spansLines(e)
}

// spansLines reports whether n's text holds a line break.
func spansLines(n ast.Node) bool {
	found := false
	walk(n, func(c ast.Node, entering bool) ast.WalkStatus {
		if t, ok := c.(*ast.Text); ok && entering && (t.SoftLineBreak() || t.HardLineBreak()) && !isLastText(n, t) {
			found = true
			return ast.WalkStop
		}
		return ast.WalkContinue
	})
	return found
}

// isLastText reports whether t ends n's text, so that its line break
// falls after n.
func isLastText(n ast.Node, t *ast.Text) bool {
	last := n.LastChild()
	for last != nil && last.HasChildren() {
		last = last.LastChild()
	}
	return last == ast.Node(t)
}

// delimiters returns the run that opened n, read from the source before
// its first text ("*", "__", "~~").
func delimiters(n ast.Node, source []byte) string {
	level, char := 2, byte('~')
	if e, ok := n.(*ast.Emphasis); ok {
		level, char = e.Level, '*'
	}
	outer := 0 // delimiters of nested runs that lie between n's and the text
	first := n.FirstChild()
	for first != nil && first.Kind() != ast.KindText {
		if e, ok := first.(*ast.Emphasis); ok {
			outer += e.Level
		} else if first.Kind() == extast.KindStrikethrough {
			outer += 2
		} else {
			break
		}
		first = first.FirstChild()
	}
	if t, ok := first.(*ast.Text); ok {
		if start := t.Segment.Start - outer - level; start >= 0 && (source[start] == '*' || source[start] == '_' || source[start] == '~') {
			char = source[start]
		}
	}
	return strings.Repeat(string(char), level)
}

// link writes web, mail and tg: links; any other address stays the text
// the model wrote.
func (htmlRenderer) link(w *strings.Builder, source []byte, n ast.Node, entering bool) ast.WalkStatus {
	l := n.(*ast.Link)
	dest := destination(l.Destination)
	if !safeLink(dest) {
		if entering {
			w.WriteByte('[')
		} else {
			w.WriteString("](" + escapeHTML(dest))
			if len(l.Title) > 0 {
				w.WriteString(` "` + escapeHTML(string(l.Title)) + `"`)
			}
			w.WriteByte(')')
		}
		return ast.WalkContinue
	}
	if entering {
		w.WriteString(`<a href="` + escapeAttr(dest) + `">`)
		if !hasText(n) {
			w.WriteString(escapeHTML(dest))
		}
	} else {
		w.WriteString("</a>")
	}
	return ast.WalkContinue
}

// destination is a link's address as CommonMark reads it; a space (from
// an <address in brackets>) is percent-encoded, as a URL has it.
func destination(raw []byte) string {
	return strings.ReplaceAll(string(unescape(raw)), " ", "%20")
}

// image becomes a link to the picture, its description the label.
func (htmlRenderer) image(w *strings.Builder, source []byte, n ast.Node, entering bool) ast.WalkStatus {
	dest := destination(n.(*ast.Image).Destination)
	if !safeLink(dest) {
		return ast.WalkContinue
	}
	if entering {
		w.WriteString(`<a href="` + escapeAttr(dest) + `">`)
		if !hasText(n) {
			w.WriteString(escapeHTML(dest))
		}
	} else {
		w.WriteString("</a>")
	}
	return ast.WalkContinue
}

func (htmlRenderer) autoLink(w *strings.Builder, source []byte, n ast.Node, entering bool) ast.WalkStatus {
	if !entering {
		return ast.WalkSkipChildren
	}
	a := n.(*ast.AutoLink)
	label := string(a.Label(source))
	dest := string(a.URL(source))
	if a.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(dest), "mailto:") {
		dest = "mailto:" + dest
	}
	if !safeLink(dest) {
		w.WriteString(escapeHTML("<" + label + ">"))
		return ast.WalkSkipChildren
	}
	w.WriteString(`<a href="` + escapeAttr(dest) + `">` + escapeHTML(label) + "</a>")
	return ast.WalkSkipChildren
}

// rawHTML is inline HTML the model wrote (or a <word> it meant as text):
// Telegram would refuse most of it, so it is shown as typed.
func (htmlRenderer) rawHTML(w *strings.Builder, source []byte, n ast.Node, entering bool) ast.WalkStatus {
	if !entering {
		return ast.WalkSkipChildren
	}
	segs := n.(*ast.RawHTML).Segments
	for i := range segs.Len() {
		s := segs.At(i)
		w.WriteString(escapeHTML(string(s.Value(source))))
	}
	return ast.WalkSkipChildren
}

func hasText(n ast.Node) bool {
	found := false
	walk(n, func(c ast.Node, entering bool) ast.WalkStatus {
		if t, ok := c.(*ast.Text); ok && entering && t.Segment.Len() > 0 {
			found = true
			return ast.WalkStop
		}
		if c.Kind() == ast.KindCodeSpan || c.Kind() == ast.KindString {
			found = true
			return ast.WalkStop
		}
		return ast.WalkContinue
	})
	return found
}

// safeLink reports whether Telegram may link to dest: web, mail and tg:
// addresses only.
func safeLink(dest string) bool {
	lower := strings.ToLower(dest)
	for _, scheme := range []string{"https://", "http://", "mailto:", "tg://"} {
		if strings.HasPrefix(lower, scheme) && len(dest) > len(scheme) {
			return true
		}
	}
	return false
}

var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func escapeHTML(s string) string { return htmlEscaper.Replace(s) }

var attrEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

func escapeAttr(s string) string { return attrEscaper.Replace(s) }
