package attachments

import "testing"

// TestKindOfCH4: what a file is read as is known before it is downloaded,
// by the platform's type, else by the name's extension; what is not read
// is not taken.
func TestKindOfCH4(t *testing.T) {
	for _, tc := range []struct {
		photo      bool
		mime, name string
		want       string
	}{
		{true, "", "", KindImage},
		{false, "image/png", "screen.png", KindImage},
		{false, "application/octet-stream", "IMG_1.JPG", KindImage},
		{false, "application/pdf", "lease", KindPDF},
		{false, "", "lease.PDF", KindPDF},
		{false, "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "x", KindDocx},
		{false, "text/markdown", "notes.md", KindText},
		{false, "application/octet-stream", "notes.md", KindText},
		{false, "text/csv", "bank.csv", KindText},
		{false, "image/webp", "sticker.webp", ""},
		{false, "image/heic", "IMG_2.HEIC", ""},
		{false, "application/zip", "photos.zip", ""},
		{false, "application/msword", "old.doc", ""},
	} {
		got, ok := KindOf(tc.photo, tc.mime, tc.name)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("KindOf(%v, %q, %q) = %q, %v; want %q", tc.photo, tc.mime, tc.name, got, ok, tc.want)
		}
	}
}
