// Package fakepdf writes small valid PDF files for tests: real PDF syntax
// (objects, a page tree, compressed content streams, a cross-reference
// table with exact offsets) in the two ways office software writes text,
// so a reader is tested on what it meets, without a PDF tool installed.
//
// It serves the tests of CH4 (documents reach the model as text).
package fakepdf

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
	"unicode/utf16"
)

// Page is one page's lines of text.
type Page struct {
	Lines []string
	// CID writes the page the way Word and LibreOffice embed a subset
	// font: a Type0 font with Identity-H two-byte codes in hex strings and
	// a ToUnicode map; false writes Helvetica with literal strings and a
	// TJ array with kerning.
	CID bool
}

// Write returns a PDF of the pages; content streams are FlateDecode.
func Write(pages ...Page) []byte {
	var objs []string // objs[i] is object i+1's body
	add := func(body string) int {
		objs = append(objs, body)
		return len(objs)
	}
	catalog := add("") // filled in once the page tree is known
	tree := add("")
	helv := add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	var kids []string
	for _, p := range pages {
		var content, fonts string
		if p.CID {
			codes := map[rune]int{}
			var text strings.Builder
			text.WriteString("BT /F2 12 Tf 72 720 Td 14 TL\n")
			for _, line := range p.Lines {
				text.WriteString("<")
				for _, r := range line {
					c, ok := codes[r]
					if !ok {
						c = len(codes) + 1
						codes[r] = c
					}
					fmt.Fprintf(&text, "%04X", c)
				}
				text.WriteString("> Tj T*\n")
			}
			text.WriteString("ET\n")
			content = text.String()
			cmap := add(stream("", toUnicode(codes)))
			desc := add("<< /Type /Font /Subtype /CIDFontType2 /BaseFont /ABCDEF+Carlito /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> >>")
			f2 := add(fmt.Sprintf("<< /Type /Font /Subtype /Type0 /BaseFont /ABCDEF+Carlito /Encoding /Identity-H /DescendantFonts [%d 0 R] /ToUnicode %d 0 R >>", desc, cmap))
			fonts = fmt.Sprintf("/F2 %d 0 R", f2)
		} else {
			var text strings.Builder
			text.WriteString("BT /F1 12 Tf 72 720 Td\n")
			for i, line := range p.Lines {
				if i > 0 {
					text.WriteString("0 -14 Td\n")
				}
				// Words as a TJ array with a wide gap between them, as a
				// justified line is written; the rest as one string.
				words := strings.Fields(line)
				text.WriteString("[")
				for j, w := range words {
					if j > 0 {
						text.WriteString(" -250 ")
					}
					text.WriteString("(" + escape(w) + ")")
				}
				text.WriteString("] TJ\n")
			}
			text.WriteString("ET\n")
			content = text.String()
			fonts = fmt.Sprintf("/F1 %d 0 R", helv)
		}
		c := add(stream("/Filter /FlateDecode", deflate(content)))
		page := add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R /Resources << /Font << %s >> >> >>", tree, c, fonts))
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
	}
	objs[catalog-1] = fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", tree)
	objs[tree-1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))

	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, body := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, body)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, catalog, xref)
	return b.Bytes()
}

func stream(filter, data string) string {
	return fmt.Sprintf("<< /Length %d %s >>\nstream\n%s\nendstream", len(data), filter, data)
}

func deflate(s string) string {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	w.Write([]byte(s)) // a bytes.Buffer takes every write
	w.Close()
	return b.String()
}

// escape writes a literal string's special characters as PDF escapes.
func escape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`)
	var b strings.Builder
	for _, c := range r.Replace(s) {
		if c > 0x7e && c <= 0xff {
			fmt.Fprintf(&b, "\\%03o", c) // Latin-1 as an octal escape
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// toUnicode is a ToUnicode CMap of codes to their characters, in bfchar
// entries (UTF-16BE, so characters past the BMP take two units).
func toUnicode(codes map[rune]int) string {
	var b strings.Builder
	b.WriteString("/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n")
	b.WriteString("1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n")
	fmt.Fprintf(&b, "%d beginbfchar\n", len(codes))
	for r, c := range codes {
		fmt.Fprintf(&b, "<%04X> <", c)
		for _, u := range utf16.Encode([]rune{r}) {
			fmt.Fprintf(&b, "%04X", u)
		}
		b.WriteString(">\n")
	}
	b.WriteString("endbfchar\nendcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n")
	return b.String()
}
