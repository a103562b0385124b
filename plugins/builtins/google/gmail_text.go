package google

import (
	"bytes"
	"io"
	"mime"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// A mail's text as the model reads it: Gmail gives a message as a tree of
// MIME parts with base64url bodies in their own charsets; this file finds
// the text in it (plain, else HTML made readable) and the attachments.

// header is a message's headers, looked up by name in any case.
type header []messageHeader

func headers(p *messagePart) header {
	if p == nil {
		return nil
	}
	return p.Headers
}

// get is the first value of the header name, its encoded words decoded.
func (h header) get(name string) string { return decodeWords(h.raw(name)) }

// raw is the first value of the header name as Gmail gives it.
func (h header) raw(name string) string {
	for _, x := range h {
		if strings.EqualFold(x.Name, name) {
			return x.Value
		}
	}
	return ""
}

func decodeWords(v string) string {
	dec := mime.WordDecoder{CharsetReader: charset.NewReaderLabel}
	if s, err := dec.DecodeHeader(v); err == nil {
		return s
	}
	return v // not well encoded: the raw text still says something
}

type attachment struct {
	name, mimeType string
	size           int64
}

// parts is what readParts found in a message.
type parts struct {
	plain, html string
	attachments []attachment
}

// readParts walks a message's parts: the first text/plain and text/html
// that are not attachments are its text; parts with a file name or an
// attachment disposition are listed, not read.
func readParts(p *messagePart) parts {
	var ps parts
	var walk func(p *messagePart)
	walk = func(p *messagePart) {
		if p == nil {
			return
		}
		h := header(p.Headers)
		disp, _, _ := mime.ParseMediaType(h.get("Content-Disposition"))
		mt := strings.ToLower(p.MimeType)
		switch {
		case p.Filename != "" || disp == "attachment":
			var n int64
			if p.Body != nil {
				n = p.Body.Size
			}
			ps.attachments = append(ps.attachments, attachment{name: p.Filename, mimeType: p.MimeType, size: n})
			return
		case mt == "text/plain" && ps.plain == "":
			ps.plain = partText(p)
		case mt == "text/html" && ps.html == "":
			ps.html = partText(p)
		}
		for _, c := range p.Parts {
			walk(c)
		}
	}
	walk(p)
	return ps
}

// text is the message's text: the plain part, else the HTML part made
// readable.
func (ps parts) text() string {
	if strings.TrimSpace(ps.plain) != "" {
		return tidy(ps.plain)
	}
	if ps.html != "" {
		return htmlText(ps.html)
	}
	return ""
}

// partText decodes a leaf part's body into UTF-8 text.
func partText(p *messagePart) string {
	if p.Body == nil || p.Body.Data == "" {
		return ""
	}
	b, err := decodeData(p.Body.Data)
	if err != nil {
		return ""
	}
	_, params, _ := mime.ParseMediaType(header(p.Headers).get("Content-Type"))
	if cs := strings.ToLower(params["charset"]); cs != "" && cs != "utf-8" && cs != "us-ascii" {
		if r, err := charset.NewReaderLabel(cs, bytes.NewReader(b)); err == nil {
			if conv, err := io.ReadAll(r); err == nil {
				b = conv
			}
		}
	}
	if !utf8.Valid(b) {
		return strings.ToValidUTF8(string(b), "�")
	}
	return string(b)
}

// tidy evens a text's lines: LF line ends, no trailing spaces, at most one
// blank line in a row, none at either end.
func tidy(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var out []string
	blank := false
	for line := range strings.SplitSeq(s, "\n") {
		line = strings.TrimRight(line, " \t\r")
		if line == "" {
			blank = len(out) > 0
			continue
		}
		if blank {
			out = append(out, "")
			blank = false
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// linkMax bounds the addresses htmlText shows beside a link's words:
// longer ones are trackers that only cost the model's attention.
const linkMax = 120

// htmlText turns an HTML mail into readable text: blocks on lines of
// their own, list items marked, link addresses beside their words, and
// nothing of scripts, styles or the head.
func htmlText(s string) string {
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		return ""
	}
	var w textWriter
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			w.text(n.Data)
			return
		case html.ElementNode:
			switch n.DataAtom {
			case atom.Script, atom.Style, atom.Head, atom.Noscript, atom.Template, atom.Svg, atom.Title:
				return
			case atom.Br:
				w.lineBreak()
				return
			case atom.Hr:
				w.breakLines(2)
				return
			case atom.Img:
				if alt := strings.TrimSpace(attr(n, "alt")); alt != "" {
					w.word("[" + alt + "]")
				}
				return
			}
		}
		gap := 0
		switch {
		case n.Type != html.ElementNode:
		case n.DataAtom == atom.P || isHeading(n.DataAtom):
			gap = 2
		case isBlock(n.DataAtom):
			gap = 1
		case n.DataAtom == atom.Td || n.DataAtom == atom.Th:
			w.space = true
		}
		w.breakLines(gap)
		if n.DataAtom == atom.Li {
			w.word("-")
			w.space = true
		}
		start := w.b.Len()
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.DataAtom == atom.A {
			href := strings.TrimSpace(attr(n, "href"))
			words := strings.TrimSpace(w.b.String()[start:])
			link := strings.HasPrefix(href, "http://") || strings.HasPrefix(href, "https://") || strings.HasPrefix(href, "mailto:")
			if link && len(href) <= linkMax && words != href && words != strings.TrimPrefix(href, "mailto:") {
				w.space = true
				w.word("(" + href + ")")
			}
		}
		w.breakLines(gap)
	}
	walk(doc)
	return w.b.String()
}

// textWriter writes words with HTML's rules for white space: runs of it
// are one space, and block edges ask for line breaks, which are written
// (the most asked for) only before the next word.
type textWriter struct {
	b     strings.Builder
	lines int  // line breaks due before the next word
	space bool // a space is due before the next word
}

func (w *textWriter) text(s string) {
	if strings.TrimLeft(s, " \t\r\n\f") != s {
		w.space = true
	}
	for _, f := range strings.Fields(s) {
		w.word(f)
		w.space = true
	}
	if strings.TrimRight(s, " \t\r\n\f") == s {
		w.space = false
	}
}

func (w *textWriter) word(f string) {
	if w.b.Len() > 0 {
		switch {
		case w.lines > 0:
			w.b.WriteString(strings.Repeat("\n", w.lines))
		case w.space:
			w.b.WriteByte(' ')
		}
	}
	w.lines, w.space = 0, false
	w.b.WriteString(f)
}

// breakLines asks for n line breaks before the next word (0: none).
func (w *textWriter) breakLines(n int) { w.lines = max(w.lines, n) }

// lineBreak is a <br>: each one adds a line, up to one blank line.
func (w *textWriter) lineBreak() { w.lines = min(w.lines+1, 2) }

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func isHeading(a atom.Atom) bool {
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

func isBlock(a atom.Atom) bool {
	switch a {
	case atom.P, atom.Div, atom.Tr, atom.Table, atom.Ul, atom.Ol, atom.Li, atom.Blockquote,
		atom.Section, atom.Article, atom.Header, atom.Footer, atom.Pre, atom.Dl, atom.Dt, atom.Dd,
		atom.Address, atom.Center, atom.Main, atom.Nav, atom.Aside, atom.Form, atom.Fieldset:
		return true
	}
	return isHeading(a)
}

// dropQuoted leaves out what a reply quotes of earlier mail: lines that
// begin with ">" and the attribution line (ending in ":") just before
// them, so a thread shows each message's own words once.
func dropQuoted(s string) string {
	lines := strings.Split(s, "\n")
	quoted := func(l string) bool { return strings.HasPrefix(strings.TrimLeft(l, " \t"), ">") }
	var out []string
	for i, l := range lines {
		if quoted(l) {
			continue
		}
		next := i + 1
		for next < len(lines) && strings.TrimSpace(lines[next]) == "" {
			next++
		}
		if strings.HasSuffix(strings.TrimSpace(l), ":") && next < len(lines) && quoted(lines[next]) {
			continue
		}
		out = append(out, l)
	}
	return tidy(strings.Join(out, "\n"))
}
