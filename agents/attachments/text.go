package attachments

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jarvisbot/jarvisbot"
)

// The bounds of a document's text handed to a model: about 15,000 tokens,
// a long contract, within what one turn may carry beside its history.
const (
	MaxTextBytes = 60 << 10
	MaxPages     = 50
)

// Document is the text read from a file, with what was left out.
type Document struct {
	Text  string
	Pages int // a PDF's pages in all; 0 for other files
	// Read is how many pages were read (at most MaxPages); Cut says the
	// text was cut at MaxTextBytes.
	Read int
	Cut  bool
}

// ReadDocument reads the text of a file of the given kind (KindPDF,
// KindDocx or KindText), bounded by MaxPages and MaxTextBytes.
func ReadDocument(kind string, data []byte) (Document, error) {
	var d Document
	switch kind {
	case KindText:
		d.Text = plainText(data)
	case KindPDF:
		var err error
		if d, err = ReadPDF(data, MaxPages); err != nil {
			return Document{}, err
		}
	case KindDocx:
		var err error
		if d.Text, err = ReadDocx(data); err != nil {
			return Document{}, err
		}
	default:
		return Document{}, jarvisbot.Errorf(jarvisbot.EINVALID, "this is no document I read: %s", Accepted)
	}
	if len(d.Text) > MaxTextBytes {
		cut := MaxTextBytes
		for cut > 0 && !utf8.RuneStart(d.Text[cut]) {
			cut--
		}
		d.Text, d.Cut = d.Text[:cut], true
	}
	return d, nil
}

// plainText is a text file's content: UTF-8 as it is (without a byte
// order mark), anything else read as Latin-1, the usual other encoding of
// a CSV from a spreadsheet.
func plainText(data []byte) string {
	s := strings.TrimPrefix(string(data), "\uFEFF")
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, c := range data {
		b.WriteRune(rune(c))
	}
	return b.String()
}

// Bounds says what of a document the model got, for the text handed to
// it: "" when it got all.
func (d Document) Bounds() string {
	var parts []string
	if d.Pages > d.Read && d.Read > 0 {
		parts = append(parts, fmt.Sprintf("only its first %d of %d pages were read", d.Read, d.Pages))
	}
	if d.Cut {
		parts = append(parts, fmt.Sprintf("the text is cut after its first %d KB", MaxTextBytes>>10))
	}
	if len(parts) == 0 {
		return ""
	}
	return "[This file was shortened: " + strings.Join(parts, "; ") + ". Say so if the answer may lie in the rest.]"
}
