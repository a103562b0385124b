package browser

import (
	"bytes"
	"fmt"
	"io"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	"codeberg.org/readeck/go-readability/v2/render"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"

	"github.com/jarvisbot/jarvisbot/internal/sizelimit"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/native"
)

// A page is what the browser remembers of the last page opened in a chat:
// enough to follow its links by number and find words in it, bounded so
// that a chat's memory costs at most a few hundred KiB.
type page struct {
	url    string
	title  string
	status string // "404 Not Found" for an error status, else ""
	kind   string // for a file not shown: "a PDF document, 1.2 MiB"; else ""
	text   string
	links  []link
	cut    bool // the body was cut at MaxBytes
	maxB   int64
	engine string // "chromium" when the page was rendered
}

type link struct {
	text string
	url  string
}

// Bounds of what is kept of a page and shown of it.
const (
	keepText  = 256 << 10 // text kept for find
	keepLinks = 300       // links kept for follow
	showText  = 5000      // text shown by open
	linkText  = 80        // a link's text in the list
	linkURL   = 200       // a link's address in the list
)

// newPage makes the page the model reads out of a response.
func newPage(r *response, maxBytes int64) *page {
	p := &page{url: r.url.String(), cut: r.cut, maxB: maxBytes}
	if r.status >= 400 {
		p.status = fmt.Sprintf("%d %s", r.status, r.statusText)
	}
	if r.rendered {
		p.engine = "chromium"
	}
	mt := r.mediaType()
	switch kindOf(mt) {
	case kindHTML:
		p.readHTML(r)
	case kindText:
		p.text = cleanLines(decode(r.body, r.contentType), strings.TrimRightFunc)
	default:
		size := "of unknown size"
		switch {
		case r.size >= 0 && r.cut:
			size = "larger than " + sizelimit.Bytes(maxBytes)
		case r.size >= 0:
			size = sizelimit.Bytes(r.size)
		}
		p.kind = describe(mt) + ", " + size
		p.cut = false
	}
	if len(p.text) > keepText {
		p.text = native.Clip(p.text, keepText)
	}
	return p
}

// decode turns a body into UTF-8 text by its declared or sniffed charset.
func decode(body []byte, contentType string) string {
	rd, err := charset.NewReader(bytes.NewReader(body), contentType)
	if err != nil {
		return strings.ToValidUTF8(string(body), "\uFFFD")
	}
	b, err := io.ReadAll(rd)
	if err != nil {
		return strings.ToValidUTF8(string(body), "\uFFFD")
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// readHTML extracts the title, the readable text (Readability's main
// content, or the whole body's text when it finds none) and the links of
// the whole page, so that navigation outside the article can be followed.
func (p *page) readHTML(r *response) {
	doc, err := html.Parse(strings.NewReader(decode(r.body, r.contentType)))
	if err != nil {
		p.text = clean(decode(r.body, r.contentType))
		return
	}
	base := r.url
	p.links = links(doc, base)
	art, err := readability.FromDocument(doc, base)
	if err == nil {
		p.title = native.OneLine(art.Title())
		if art.Node != nil {
			p.text = clean(render.InnerText(art.Node))
		}
	}
	if p.title == "" {
		if t := find(doc, atom.Title); t != nil {
			p.title = native.OneLine(textOf(t))
		}
	}
	if strings.TrimSpace(p.text) == "" {
		if body := find(doc, atom.Body); body != nil {
			strip(body)
			p.text = clean(render.InnerText(body))
		}
	}
}

// links lists the page's links to other http(s) addresses, resolved
// against the page's address (or its <base>), each once, in page order.
func links(doc *html.Node, pageURL *url.URL) []link {
	base := pageURL
	if b := find(doc, atom.Base); b != nil {
		if u, err := pageURL.Parse(attr(b, "href")); err == nil && attr(b, "href") != "" {
			base = u
		}
	}
	var out []link
	seen := map[string]bool{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if len(out) >= keepLinks {
			return
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.A {
			if l, ok := linkOf(n, base, pageURL); ok && !seen[l.url] {
				seen[l.url] = true
				out = append(out, l)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

func linkOf(n *html.Node, base, pageURL *url.URL) (link, bool) {
	href := strings.TrimSpace(attr(n, "href"))
	if href == "" || strings.HasPrefix(href, "#") {
		return link{}, false
	}
	u, err := base.Parse(href)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return link{}, false
	}
	u.Fragment = ""
	u.RawFragment = ""
	if u.String() == pageURL.String() {
		return link{}, false
	}
	text := native.OneLine(textOf(n))
	for _, a := range []string{"aria-label", "title"} {
		if text == "" {
			text = native.OneLine(attr(n, a))
		}
	}
	if text == "" {
		if img := find(n, atom.Img); img != nil {
			text = native.OneLine(attr(img, "alt"))
		}
	}
	return link{text: text, url: u.String()}, true
}

// find returns the first element of type a in n's subtree.
func find(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := find(c, a); f != nil {
			return f
		}
	}
	return nil
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// textOf is the text inside n, without scripts and styles.
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			b.WriteString(n.Data)
			b.WriteByte(' ')
		case n.Type == html.ElementNode && invisible(n.DataAtom):
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func invisible(a atom.Atom) bool {
	switch a {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Iframe, atom.Object:
		return true
	}
	return false
}

// strip removes the elements whose text is not shown on the page.
func strip(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode && invisible(c.DataAtom) || c.Type == html.CommentNode {
			n.RemoveChild(c)
		} else {
			strip(c)
		}
		c = next
	}
}

// clean trims each line and folds runs of blank lines into one, so the
// model's context holds words, not layout.
func clean(s string) string { return cleanLines(s, strings.TrimFunc) }

// cleanLines is clean with the trimming of each line given: a text file
// (JSON, code) keeps its indentation, which carries meaning.
func cleanLines(s string, trim func(string, func(rune) bool) string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	out := lines[:0]
	blank := true
	for _, l := range lines {
		l = trim(l, unicode.IsSpace)
		if l == "" {
			if !blank {
				out = append(out, "")
			}
			blank = true
			continue
		}
		out = append(out, l)
		blank = false
	}
	return strings.TrimRightFunc(strings.Join(out, "\n"), unicode.IsSpace)
}

// render writes the page for the model: what it is, its text (clipped),
// and up to showLinks of its links, numbered for follow.
func (p *page) render(showLinks int) string {
	var b strings.Builder
	if p.title != "" {
		fmt.Fprintf(&b, "Title: %s\n", p.title)
	}
	fmt.Fprintf(&b, "URL: %s\n", p.url)
	if p.status != "" {
		fmt.Fprintf(&b, "The server answered %s: what follows is its error page.\n", p.status)
	}
	if p.engine != "" {
		fmt.Fprintf(&b, "Rendered with %s.\n", p.engine)
	}
	if p.kind != "" {
		fmt.Fprintf(&b, "\nThis is %s, not a web page: the browser reads only HTML and text, so it is not shown.\n", p.kind)
		return b.String()
	}
	if p.cut {
		fmt.Fprintf(&b, "The page is larger than %s: only its first %s were read.\n", sizelimit.Bytes(p.maxB), sizelimit.Bytes(p.maxB))
	}
	b.WriteByte('\n')
	if strings.TrimSpace(p.text) == "" {
		b.WriteString("(the page has no readable text)\n")
	} else {
		text := p.text
		if len(text) > showText {
			text = native.Clip(text, showText) + " Use find to look for words in the rest of the page."
		}
		b.WriteString(text)
		b.WriteByte('\n')
	}
	if len(p.links) == 0 {
		return b.String()
	}
	n := min(showLinks, len(p.links))
	if n < len(p.links) {
		fmt.Fprintf(&b, "\nLinks (the first %d of %d; follow one by its number):\n", n, len(p.links))
	} else {
		fmt.Fprintf(&b, "\nLinks (follow one by its number):\n")
	}
	for i, l := range p.links[:n] {
		text := l.text
		if text == "" {
			text = "(no text)"
		}
		fmt.Fprintf(&b, "%d. %s — %s\n", i+1, cut(text, linkText), cut(l.url, linkURL))
	}
	return b.String()
}

// cut shortens s to about n bytes on a rune boundary with an ellipsis.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
