package attachments

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/jarvisbot/jarvisbot"
)

// A PDF's text, read with the standard library: the objects are found by
// scanning for "N G obj" (so a damaged cross-reference table costs
// nothing) and in object streams; pages are taken in the order of the page
// tree; each page's content streams are inflated and their text operators
// (Tj, TJ, ', ") read, each string decoded through its font's ToUnicode
// map when it has one, else as a single-byte (WinAnsi) encoding. Text in
// form XObjects, encrypted files and scans (images of pages) are not read:
// the model is told that no text came out.

// pdfMaxInflate bounds one inflated stream: a small stream can inflate to
// gigabytes (a zip bomb), and no page's text needs more.
const pdfMaxInflate = 16 << 20

type (
	pdfName string
	pdfRef  struct{ num, gen int }
	pdfDict map[pdfName]any
	// pdfStream is a stream's dictionary and its raw (still encoded) bytes.
	pdfStream struct {
		dict pdfDict
		raw  []byte
	}
	pdfFile struct {
		data []byte
		objs map[int]any
	}
)

// objectStarts finds every "N G obj" in data: the object's number and
// where its value begins. Written out rather than as a regular expression,
// which would be compiled at every start of the program.
func objectStarts(data []byte) (nums, starts []int) {
	digitsBefore := func(j int) (int, int) { // the number ending at j, and where it starts
		k := j
		for k >= 0 && data[k] >= '0' && data[k] <= '9' && j-k < 10 {
			k--
		}
		if k == j {
			return -1, j
		}
		n, _ := strconv.Atoi(string(data[k+1 : j+1]))
		return n, k
	}
	spacesBefore := func(j int) int {
		k := j
		for k >= 0 && isSpace(data[k]) {
			k--
		}
		return k
	}
	for off := 0; ; {
		i := bytes.Index(data[off:], []byte("obj"))
		if i < 0 {
			return nums, starts
		}
		at := off + i
		off = at + 3
		if off < len(data) && !isSpace(data[off]) && !isDelim(data[off]) {
			continue // "objects", not the keyword
		}
		j := spacesBefore(at - 1)
		if j == at-1 {
			continue // "endobj", or no space before
		}
		gen, k := digitsBefore(j)
		if gen < 0 {
			continue
		}
		j = spacesBefore(k)
		if j == k {
			continue
		}
		num, k := digitsBefore(j)
		if num < 0 || (k >= 0 && !isSpace(data[k]) && !isDelim(data[k])) {
			continue
		}
		nums, starts = append(nums, num), append(starts, off)
	}
}

// ReadPDF reads the text of a PDF's first maxPages pages.
func ReadPDF(data []byte, maxPages int) (Document, error) {
	if !bytes.HasPrefix(bytes.TrimLeft(data[:min(len(data), 1024)], "\x00\t\r\n "), []byte("%PDF-")) && !bytes.Contains(data[:min(len(data), 1024)], []byte("%PDF-")) {
		return Document{}, jarvisbot.Errorf(jarvisbot.EINVALID, "it is not a PDF file")
	}
	f := &pdfFile{data: data, objs: map[int]any{}}
	nums, starts := objectStarts(data)
	for i, num := range nums {
		l := &pdfLexer{data: data, pos: starts[i]}
		v, err := l.object()
		if err != nil {
			continue // a damaged object costs itself only
		}
		f.objs[num] = v
	}
	if len(f.objs) == 0 {
		return Document{}, jarvisbot.Errorf(jarvisbot.EINVALID, "the PDF holds no objects that can be read: it may be damaged")
	}
	f.unpackObjectStreams()
	if f.encrypted() {
		return Document{}, jarvisbot.Errorf(jarvisbot.EINVALID, "the PDF is encrypted: save or print it again without a password (or as text) and send that")
	}
	pages := f.pages()
	d := Document{Pages: len(pages)}
	var b strings.Builder
	for i, p := range pages {
		if i == maxPages || b.Len() > MaxTextBytes {
			break
		}
		d.Read = i + 1
		text := strings.TrimSpace(f.pageText(p))
		if text == "" {
			continue
		}
		if len(pages) > 1 {
			fmt.Fprintf(&b, "[page %d]\n", i+1)
		}
		b.WriteString(text)
		b.WriteString("\n\n")
	}
	d.Text = strings.TrimSpace(b.String())
	return d, nil
}

// resolve follows references, at most a few deep (a loop is damage).
func (f *pdfFile) resolve(v any) any {
	for range 8 {
		r, ok := v.(pdfRef)
		if !ok {
			return v
		}
		v = f.objs[r.num]
	}
	return nil
}

func (f *pdfFile) dict(v any) pdfDict {
	switch d := f.resolve(v).(type) {
	case pdfDict:
		return d
	case pdfStream:
		return d.dict
	}
	return nil
}

func (f *pdfFile) int(v any) (int, bool) {
	n, ok := f.resolve(v).(float64)
	return int(n), ok
}

// encrypted reports whether a trailer (or a cross-reference stream)
// names an /Encrypt dictionary.
func (f *pdfFile) encrypted() bool {
	for _, v := range f.objs {
		if s, ok := v.(pdfStream); ok && s.dict["Type"] == pdfName("XRef") && s.dict["Encrypt"] != nil {
			return true
		}
	}
	for _, i := range indexAll(f.data, []byte("trailer")) {
		l := &pdfLexer{data: f.data, pos: i + len("trailer")}
		if d, ok := l.value().(pdfDict); ok && d["Encrypt"] != nil {
			return true
		}
	}
	return false
}

func indexAll(data, sep []byte) []int {
	var out []int
	for off := 0; ; {
		i := bytes.Index(data[off:], sep)
		if i < 0 {
			return out
		}
		out = append(out, off+i)
		off += i + len(sep)
	}
}

// unpackObjectStreams adds the objects kept in object streams (PDF 1.5
// on: most of a modern file's dictionaries are there).
func (f *pdfFile) unpackObjectStreams() {
	for _, v := range f.objs {
		s, ok := v.(pdfStream)
		if !ok || s.dict["Type"] != pdfName("ObjStm") {
			continue
		}
		data, err := f.decode(s)
		if err != nil {
			continue
		}
		n, _ := f.int(s.dict["N"])
		first, _ := f.int(s.dict["First"])
		if first <= 0 || first > len(data) {
			continue
		}
		head := &pdfLexer{data: data[:first]}
		for range n {
			num, ok1 := head.value().(float64)
			off, ok2 := head.value().(float64)
			if !ok1 || !ok2 || first+int(off) >= len(data) {
				break
			}
			if _, have := f.objs[int(num)]; have {
				continue
			}
			l := &pdfLexer{data: data, pos: first + int(off)}
			f.objs[int(num)] = l.value()
		}
	}
}

// decode inflates a stream; a filter other than FlateDecode is an error
// (ASCII85, LZW and image codecs hold no text worth the code).
func (f *pdfFile) decode(s pdfStream) ([]byte, error) {
	var filters []any
	switch fl := f.resolve(s.dict["Filter"]).(type) {
	case nil:
	case pdfName:
		filters = []any{fl}
	case []any:
		filters = fl
	}
	data := s.raw
	for _, fl := range filters {
		if f.resolve(fl) != pdfName("FlateDecode") {
			return nil, fmt.Errorf("filter %v is not read", fl)
		}
		var r io.Reader
		if zr, err := zlib.NewReader(bytes.NewReader(data)); err == nil {
			r = zr
		} else {
			r = flate.NewReader(bytes.NewReader(data)) // raw deflate, as some writers make it
		}
		out, err := io.ReadAll(io.LimitReader(r, pdfMaxInflate))
		if err != nil && len(out) == 0 {
			return nil, err
		}
		data = out // a truncated stream still gives what it had
	}
	return data, nil
}

// pages are the page dictionaries in the page tree's order; without a
// readable tree, every page object in the file's order.
func (f *pdfFile) pages() []pdfDict {
	var roots []int
	for num, v := range f.objs {
		if d, ok := v.(pdfDict); ok && d["Type"] == pdfName("Pages") && d["Parent"] == nil {
			roots = append(roots, num)
		}
	}
	slices.Sort(roots)
	var out []pdfDict
	seen := map[int]bool{}
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if r, ok := v.(pdfRef); ok {
			if seen[r.num] {
				return
			}
			seen[r.num] = true
		}
		d := f.dict(v)
		if d == nil || depth > 32 {
			return
		}
		if d["Type"] == pdfName("Page") {
			out = append(out, d)
			return
		}
		kids, _ := f.resolve(d["Kids"]).([]any)
		for _, k := range kids {
			walk(k, depth+1)
		}
	}
	for _, r := range roots {
		walk(pdfRef{num: r}, 0)
	}
	if len(out) > 0 {
		return out
	}
	var nums []int
	for num, v := range f.objs {
		if d, ok := v.(pdfDict); ok && d["Type"] == pdfName("Page") {
			nums = append(nums, num)
		}
	}
	slices.Sort(nums)
	for _, n := range nums {
		out = append(out, f.objs[n].(pdfDict))
	}
	return out
}

// inherited is a page's entry, or the nearest ancestor's (Resources are
// often given once for the whole tree).
func (f *pdfFile) inherited(page pdfDict, key pdfName) any {
	d := page
	for range 32 {
		if d == nil {
			return nil
		}
		if v, ok := d[key]; ok {
			return v
		}
		d = f.dict(d["Parent"])
	}
	return nil
}

// pageText reads the text of one page's content streams.
func (f *pdfFile) pageText(page pdfDict) string {
	var content []byte
	var parts []any
	switch c := page["Contents"].(type) {
	case []any:
		parts = c
	default:
		if arr, ok := f.resolve(c).([]any); ok {
			parts = arr
		} else {
			parts = []any{c}
		}
	}
	for _, p := range parts {
		if s, ok := f.resolve(p).(pdfStream); ok {
			if data, err := f.decode(s); err == nil {
				content = append(content, data...)
				content = append(content, '\n')
			}
		}
	}
	fonts := map[pdfName]*pdfFont{}
	if res := f.dict(f.inherited(page, "Resources")); res != nil {
		for name, v := range f.dict(res["Font"]) {
			fonts[name] = f.font(v)
		}
	}
	return showText(content, fonts)
}

// pdfFont is how a font's string bytes become text: its ToUnicode map
// (codes of width bytes), or nil for a single-byte encoding.
type pdfFont struct {
	width int
	cmap  map[uint32]string
}

func (f *pdfFile) font(v any) *pdfFont {
	d := f.dict(v)
	if d == nil {
		return nil
	}
	font := &pdfFont{width: 1}
	if d["Subtype"] == pdfName("Type0") {
		font.width = 2 // Identity-H and the usual CJK encodings
	}
	if s, ok := f.resolve(d["ToUnicode"]).(pdfStream); ok {
		if data, err := f.decode(s); err == nil {
			font.cmap, font.width = parseToUnicode(data, font.width)
		}
	}
	if font.cmap == nil && font.width == 1 {
		return nil
	}
	return font
}

// parseToUnicode reads a ToUnicode CMap's bfchar and bfrange entries; the
// code width is the first codespace range's.
func parseToUnicode(data []byte, width int) (map[uint32]string, int) {
	m := map[uint32]string{}
	l := &pdfLexer{data: data}
	var ops []any
	section := ""
	for {
		v, op, ok := l.token()
		if !ok {
			break
		}
		if op == "" {
			ops = append(ops, v)
			continue
		}
		switch op {
		case "begincodespacerange", "beginbfchar", "beginbfrange":
			section, ops = op, nil
			continue
		case "endcodespacerange":
			if len(ops) > 0 {
				if s, ok := ops[0].(string); ok && len(s) > 0 {
					width = len(s)
				}
			}
		case "endbfchar":
			for i := 0; i+1 < len(ops); i += 2 {
				src, ok1 := ops[i].(string)
				dst, ok2 := ops[i+1].(string)
				if ok1 && ok2 {
					m[code(src)] = utf16be(dst)
				}
			}
		case "endbfrange":
			for i := 0; i+2 < len(ops); i += 3 {
				lo, ok1 := ops[i].(string)
				hi, ok2 := ops[i+1].(string)
				if !ok1 || !ok2 || code(hi) < code(lo) || code(hi)-code(lo) > 0xffff {
					continue
				}
				switch dst := ops[i+2].(type) {
				case string:
					base := []rune(utf16be(dst))
					if len(base) == 0 {
						continue
					}
					for c := code(lo); c <= code(hi); c++ {
						r := slices.Clone(base)
						r[len(r)-1] += rune(c - code(lo))
						m[c] = string(r)
					}
				case []any:
					for j, d := range dst {
						if s, ok := d.(string); ok {
							m[code(lo)+uint32(j)] = utf16be(s)
						}
					}
				}
			}
		}
		section, ops = "", nil
	}
	_ = section
	return m, width
}

func code(s string) uint32 {
	var c uint32
	for i := 0; i < len(s) && i < 4; i++ {
		c = c<<8 | uint32(s[i])
	}
	return c
}

func utf16be(s string) string {
	u := make([]uint16, 0, len(s)/2)
	for i := 0; i+1 < len(s); i += 2 {
		u = append(u, uint16(s[i])<<8|uint16(s[i+1]))
	}
	return string(utf16.Decode(u))
}

// winAnsi are the characters of Windows-1252 that differ from Latin-1,
// the single-byte encoding most simple fonts use.
// An array, laid out at build time: a map would be built at every start.
var winAnsi = [32]rune{0x0: '€', 0x2: '‚', 0x4: '„', 0x5: '…', 0x6: '†', 0x7: '‡', 0x9: '‰', 0xa: 'Š',
	0xb: '‹', 0xc: 'Œ', 0xe: 'Ž', 0x11: '‘', 0x12: '’', 0x13: '“', 0x14: '”', 0x15: '•', 0x16: '–', 0x17: '—',
	0x19: '™', 0x1a: 'š', 0x1b: '›', 0x1c: 'œ', 0x1e: 'ž', 0x1f: 'Ÿ'}

func (font *pdfFont) text(s string) string {
	var b strings.Builder
	if font == nil || font.cmap == nil {
		w := 1
		if font != nil {
			w = font.width
		}
		for i := 0; i+w <= len(s); i += w {
			c := s[i+w-1] // a two-byte code without a map: its low byte is the best guess
			if c >= 0x80 && c < 0xa0 && winAnsi[c-0x80] != 0 {
				b.WriteRune(winAnsi[c-0x80])
			} else if c >= 0x20 && (c < 0x80 || c >= 0xa0) || c == '\t' {
				b.WriteRune(rune(c))
			}
		}
		return b.String()
	}
	for i := 0; i+font.width <= len(s); i += font.width {
		b.WriteString(font.cmap[code(s[i:i+font.width])])
	}
	return b.String()
}

// showText runs a content stream's text operators.
func showText(content []byte, fonts map[pdfName]*pdfFont) string {
	var b strings.Builder
	var font *pdfFont
	var ops []any
	newline := func() {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
	}
	space := func() {
		if s := b.String(); len(s) > 0 && !strings.HasSuffix(s, " ") && !strings.HasSuffix(s, "\n") {
			b.WriteByte(' ')
		}
	}
	num := func(i int) float64 {
		if i < len(ops) {
			n, _ := ops[i].(float64)
			return n
		}
		return 0
	}
	l := &pdfLexer{data: content}
	for {
		v, op, ok := l.token()
		if !ok {
			break
		}
		if op == "" {
			ops = append(ops, v)
			continue
		}
		switch op {
		case "Tf":
			if len(ops) > 0 {
				if n, ok := ops[0].(pdfName); ok {
					font = fonts[n]
				}
			}
		case "Tj":
			if len(ops) > 0 {
				if s, ok := ops[len(ops)-1].(string); ok {
					b.WriteString(font.text(s))
				}
			}
		case "'", "\"":
			newline()
			if len(ops) > 0 {
				if s, ok := ops[len(ops)-1].(string); ok {
					b.WriteString(font.text(s))
				}
			}
		case "TJ":
			if len(ops) > 0 {
				arr, _ := ops[len(ops)-1].([]any)
				for _, e := range arr {
					switch e := e.(type) {
					case string:
						b.WriteString(font.text(e))
					case float64:
						if e < -200 { // a gap wider than a fifth of the font's size: a space
							space()
						}
					}
				}
			}
		case "Td", "TD":
			if num(1) != 0 {
				newline()
			} else if num(0) != 0 {
				space()
			}
		case "T*", "ET":
			newline()
		case "Tm":
			newline()
		case "BI":
			l.skipInlineImage()
		}
		ops = ops[:0]
	}
	return b.String()
}

// pdfLexer reads PDF tokens and values from data.
type pdfLexer struct {
	data []byte
	pos  int
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == 0
}

func isDelim(c byte) bool {
	return strings.IndexByte("()<>[]{}/%", c) >= 0
}

func (l *pdfLexer) skipSpace() {
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		switch {
		case isSpace(c):
			l.pos++
		case c == '%':
			for l.pos < len(l.data) && l.data[l.pos] != '\n' && l.data[l.pos] != '\r' {
				l.pos++
			}
		default:
			return
		}
	}
}

// object reads an indirect object's value after "N G obj", with its
// stream when it has one.
func (l *pdfLexer) object() (any, error) {
	v := l.value()
	d, ok := v.(pdfDict)
	if !ok {
		return v, nil
	}
	l.skipSpace()
	if !bytes.HasPrefix(l.data[l.pos:], []byte("stream")) {
		return v, nil
	}
	start := l.pos + len("stream")
	if start < len(l.data) && l.data[start] == '\r' {
		start++
	}
	if start < len(l.data) && l.data[start] == '\n' {
		start++
	}
	if n, ok := d["Length"].(float64); ok && n >= 0 && start+int(n) <= len(l.data) {
		end := start + int(n)
		rest := bytes.TrimLeft(l.data[end:min(end+32, len(l.data))], "\r\n \t")
		if bytes.HasPrefix(rest, []byte("endstream")) {
			return pdfStream{dict: d, raw: l.data[start:end]}, nil
		}
	}
	// A length by reference, or a wrong one: the stream ends at endstream.
	end := bytes.Index(l.data[start:], []byte("endstream"))
	if end < 0 {
		return nil, fmt.Errorf("a stream without its end")
	}
	raw := l.data[start : start+end]
	raw = bytes.TrimSuffix(raw, []byte("\n"))
	raw = bytes.TrimSuffix(raw, []byte("\r"))
	return pdfStream{dict: d, raw: raw}, nil
}

// value reads one value; a reference "N G R" is read as one.
func (l *pdfLexer) value() any {
	v, op, ok := l.token()
	if !ok || op != "" {
		return nil
	}
	if n, isNum := v.(float64); isNum && n == float64(int(n)) && n >= 0 {
		save := l.pos
		g, gop, ok1 := l.token()
		if gn, isNum := g.(float64); ok1 && gop == "" && isNum && gn == float64(int(gn)) {
			if _, rop, ok2 := l.token(); ok2 && rop == "R" {
				return pdfRef{num: int(n), gen: int(gn)}
			}
		}
		l.pos = save
	}
	return v
}

// token reads a value (op "") or an operator or keyword (op set); ok is
// false at the end.
func (l *pdfLexer) token() (v any, op string, ok bool) {
	l.skipSpace()
	if l.pos >= len(l.data) {
		return nil, "", false
	}
	c := l.data[l.pos]
	switch {
	case c == '/':
		l.pos++
		start := l.pos
		for l.pos < len(l.data) && !isSpace(l.data[l.pos]) && !isDelim(l.data[l.pos]) {
			l.pos++
		}
		return pdfName(unescapeName(l.data[start:l.pos])), "", true
	case c == '(':
		return l.literal(), "", true
	case c == '<' && l.pos+1 < len(l.data) && l.data[l.pos+1] == '<':
		l.pos += 2
		d := pdfDict{}
		for {
			l.skipSpace()
			if l.pos >= len(l.data) {
				return d, "", true
			}
			if bytes.HasPrefix(l.data[l.pos:], []byte(">>")) {
				l.pos += 2
				return d, "", true
			}
			k, kop, ok := l.token()
			if !ok {
				return d, "", true
			}
			name, isName := k.(pdfName)
			if kop != "" || !isName {
				continue // damage: skip the token
			}
			d[name] = l.value()
		}
	case c == '<':
		return l.hex(), "", true
	case c == '[':
		l.pos++
		var arr []any
		for {
			l.skipSpace()
			if l.pos >= len(l.data) {
				return arr, "", true
			}
			if l.data[l.pos] == ']' {
				l.pos++
				if arr == nil {
					arr = []any{}
				}
				return arr, "", true
			}
			save := l.pos
			v := l.value()
			if l.pos == save {
				l.pos++ // a stray delimiter
				continue
			}
			arr = append(arr, v)
		}
	case c == ']' || c == '>' || c == ')' || c == '{' || c == '}':
		l.pos++
		return nil, string(c), true
	}
	start := l.pos
	for l.pos < len(l.data) && !isSpace(l.data[l.pos]) && !isDelim(l.data[l.pos]) {
		l.pos++
	}
	word := string(l.data[start:l.pos])
	if n, err := strconv.ParseFloat(word, 64); err == nil {
		return n, "", true
	}
	switch word {
	case "true":
		return true, "", true
	case "false":
		return false, "", true
	case "null":
		return nil, "", true
	}
	return nil, word, true
}

func unescapeName(b []byte) string {
	if !bytes.Contains(b, []byte("#")) {
		return string(b)
	}
	var out []byte
	for i := 0; i < len(b); i++ {
		if b[i] == '#' && i+2 < len(b) {
			if n, err := strconv.ParseUint(string(b[i+1:i+3]), 16, 8); err == nil {
				out = append(out, byte(n))
				i += 2
				continue
			}
		}
		out = append(out, b[i])
	}
	return string(out)
}

// literal reads a (string) with its escapes and balanced parentheses.
func (l *pdfLexer) literal() string {
	l.pos++ // (
	var out []byte
	depth := 1
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		l.pos++
		switch c {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return string(out)
			}
		case '\\':
			if l.pos >= len(l.data) {
				return string(out)
			}
			e := l.data[l.pos]
			l.pos++
			switch e {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r':
				if l.pos < len(l.data) && l.data[l.pos] == '\n' {
					l.pos++
				}
				continue // a line continued
			case '\n':
				continue
			default:
				if e >= '0' && e <= '7' {
					n := int(e - '0')
					for k := 0; k < 2 && l.pos < len(l.data) && l.data[l.pos] >= '0' && l.data[l.pos] <= '7'; k++ {
						n = n*8 + int(l.data[l.pos]-'0')
						l.pos++
					}
					c = byte(n)
				} else {
					c = e // \( \) \\ and any other escaped character
				}
			}
		}
		out = append(out, c)
	}
	return string(out)
}

// hex reads a <hex string>; an odd last digit counts as followed by 0.
func (l *pdfLexer) hex() string {
	l.pos++ // <
	var digits []byte
	for l.pos < len(l.data) && l.data[l.pos] != '>' {
		if c := l.data[l.pos]; strings.IndexByte("0123456789abcdefABCDEF", c) >= 0 {
			digits = append(digits, c)
		}
		l.pos++
	}
	if l.pos < len(l.data) {
		l.pos++ // >
	}
	if len(digits)%2 == 1 {
		digits = append(digits, '0')
	}
	out := make([]byte, len(digits)/2)
	for i := range out {
		n, _ := strconv.ParseUint(string(digits[2*i:2*i+2]), 16, 8)
		out[i] = byte(n)
	}
	return string(out)
}

// skipInlineImage passes an inline image's dictionary and binary data
// (BI … ID data EI), which would read as garbage operators.
func (l *pdfLexer) skipInlineImage() {
	i := bytes.Index(l.data[l.pos:], []byte("ID"))
	if i < 0 {
		l.pos = len(l.data)
		return
	}
	l.pos += i + 2
	for l.pos < len(l.data) {
		j := bytes.Index(l.data[l.pos:], []byte("EI"))
		if j < 0 {
			l.pos = len(l.data)
			return
		}
		at := l.pos + j
		l.pos = at + 2
		if at > 0 && isSpace(l.data[at-1]) && (l.pos >= len(l.data) || isSpace(l.data[l.pos])) {
			return
		}
	}
}
