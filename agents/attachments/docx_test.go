package attachments

import (
	"archive/zip"
	"bytes"
	"strings"
	"testing"
)

// docx is a minimal Word document of paragraphs, as Word writes them
// (runs of w:t, a tab, the namespace prefix w:).
func docx(t *testing.T, paragraphs ...string) []byte {
	t.Helper()
	var body strings.Builder
	for _, p := range paragraphs {
		first, rest, _ := strings.Cut(p, "\t")
		body.WriteString(`<w:p><w:r><w:t xml:space="preserve">` + first + `</w:t></w:r>`)
		if rest != "" {
			body.WriteString(`<w:r><w:tab/><w:t>` + rest + `</w:t></w:r>`)
		}
		body.WriteString(`</w:p>`)
	}
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for name, content := range map[string]string{
		"[Content_Types].xml": `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
		"word/document.xml": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
			`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` + body.String() + `</w:body></w:document>`,
	} {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(content))
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestReadDocxCH4: a Word document's paragraphs come out as lines, its
// tabs kept; a zip that is no Word document is refused in words.
func TestReadDocxCH4(t *testing.T) {
	text, err := ReadDocx(docx(t, "Notice of termination", "Date:\t30 November", "Kündigung zum 28. Februar"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Notice of termination\nDate:\t30 November\nKündigung zum 28. Februar"; text != want {
		t.Errorf("read %q, want %q", text, want)
	}
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	z.Create("photo.jpg")
	z.Close()
	if _, err := ReadDocx(b.Bytes()); err == nil || !strings.Contains(err.Error(), "no word/document.xml") {
		t.Errorf("a plain zip: %v", err)
	}
}
