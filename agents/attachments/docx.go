package attachments

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"

	"github.com/jarvisbot/jarvisbot"
)

// maxDocxXML bounds the inflated document.xml: a few kilobytes of zip can
// inflate to gigabytes, and a long contract's XML is a few megabytes.
const maxDocxXML = 32 << 20

// ReadDocx reads the text of a Word document (.docx: a zip holding
// word/document.xml): each paragraph a line, tabs and breaks kept, up to
// a little past MaxTextBytes.
func ReadDocx(data []byte) (string, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "it is not a Word (.docx) file: %v", err)
	}
	var doc *zip.File
	for _, f := range zr.File {
		if f.Name == "word/document.xml" {
			doc = f
		}
	}
	if doc == nil {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "it is a zip file but not a Word (.docx) document: it has no word/document.xml")
	}
	rc, err := doc.Open()
	if err != nil {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "the Word document cannot be opened: %v", err)
	}
	defer rc.Close()
	dec := xml.NewDecoder(io.LimitReader(rc, maxDocxXML))
	var b strings.Builder
	inText := false
	for b.Len() <= MaxTextBytes {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if b.Len() > 0 {
				break // a cut or damaged end: what came before stands
			}
			return "", jarvisbot.Errorf(jarvisbot.EINVALID, "the Word document's text cannot be read: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "t":
				inText = true
			case "tab":
				b.WriteByte('\t')
			case "br", "cr":
				b.WriteByte('\n')
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				b.WriteByte('\n')
			}
		case xml.CharData:
			if inText {
				b.Write(t)
			}
		}
	}
	return strings.TrimSpace(b.String()), nil
}
