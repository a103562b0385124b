package attachments

import (
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakepdf"
)

// TestReadPDFCH4: the text of a PDF's pages comes out in page order, from
// a simple font's literal strings (escapes, Latin-1, kerned words) and
// from a subset font's two-byte codes through its ToUnicode map.
func TestReadPDFCH4(t *testing.T) {
	pdf := fakepdf.Write(
		fakepdf.Page{Lines: []string{"Tenancy agreement (flat 3)", "Rent: 950 euros, due on the 1st; Kündigung 3 Monate"}},
		fakepdf.Page{CID: true, Lines: []string{"The landlord repairs the heating.", "Straße 7 – €20 ✓"}},
	)
	d, err := ReadPDF(pdf, MaxPages)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[page 1]\nTenancy agreement (flat 3)\nRent: 950 euros, due on the 1st; Kündigung 3 Monate",
		"[page 2]\nThe landlord repairs the heating.\nStraße 7 – €20 ✓"} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("the text lacks %q:\n%s", want, d.Text)
		}
	}
	if d.Pages != 2 || d.Read != 2 || d.Bounds() != "" {
		t.Errorf("pages %d, read %d, bounds %q", d.Pages, d.Read, d.Bounds())
	}
}

// TestReadPDFBoundsCH4: past MaxPages the rest is left, and the text says
// so; what is no PDF is refused in words.
func TestReadPDFBoundsCH4(t *testing.T) {
	var pages []fakepdf.Page
	for i := range 60 {
		pages = append(pages, fakepdf.Page{Lines: []string{"clause " + string(rune('A'+i%26))}})
	}
	d, err := ReadDocument(KindPDF, fakepdf.Write(pages...))
	if err != nil {
		t.Fatal(err)
	}
	if d.Pages != 60 || d.Read != MaxPages || !strings.Contains(d.Bounds(), "first 50 of 60 pages") || strings.Contains(d.Text, "[page 51]") {
		t.Errorf("pages %d, read %d, bounds %q", d.Pages, d.Read, d.Bounds())
	}
	if _, err := ReadPDF([]byte("hello"), MaxPages); err == nil || !strings.Contains(err.Error(), "not a PDF") {
		t.Errorf("a text file read as a PDF: %v", err)
	}
}

func BenchmarkReadPDF50Pages(b *testing.B) {
	var pages []fakepdf.Page
	for range 50 {
		var lines []string
		for range 40 {
			lines = append(lines, "The tenant keeps the flat clean and airs it daily, and tells the landlord of any damage at once.")
		}
		pages = append(pages, fakepdf.Page{Lines: lines})
	}
	pdf := fakepdf.Write(pages...)
	b.ReportAllocs()
	b.SetBytes(int64(len(pdf)))
	for b.Loop() {
		if _, err := ReadPDF(pdf, MaxPages); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzReadPDF: no file, however damaged, makes the reader panic or run
// away; it reads what it can or says why not.
func FuzzReadPDF(f *testing.F) {
	f.Add(fakepdf.Write(fakepdf.Page{Lines: []string{"a (b) c"}}, fakepdf.Page{CID: true, Lines: []string{"ß €"}}))
	f.Add([]byte("%PDF-1.4\n1 0 obj << /Type /Page /Contents 2 0 R >> endobj 2 0 obj << /Length 9 >> stream\nBT (x) Tj\nendstream endobj"))
	f.Add([]byte("%PDF-1.5\n3 0 obj << /Type /ObjStm /N 1 /First 4 >> stream\n4 0 << /Type /Pages /Kids [4 0 R] >>\nendstream endobj"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ReadPDF(data, MaxPages)
	})
}
