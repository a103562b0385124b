package telegram

import (
	"bytes"
	"context"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
)

// TestPhotoTakesTheLargestSizeABotMayFetchCH4: of a photo's sizes the
// largest whose announced size a bot may download is passed on, with its
// caption as the text, and Fetch brings that size's bytes; a document
// comes with its name and type.
func TestPhotoTakesTheLargestSizeABotMayFetchCH4(t *testing.T) {
	t.Parallel()
	small, medium, huge := []byte("small jpeg"), []byte("medium jpeg"), []byte("huge jpeg")
	s, b := newBot(t, Options{})
	m := hear(t, b, func() {
		s.SendPhoto(42, 7, "what plant is this?",
			faketelegram.PhotoSize{Data: small, Width: 90, Height: 60},
			faketelegram.PhotoSize{Data: medium, Width: 1280, Height: 960},
			faketelegram.PhotoSize{Data: huge, Width: 9000, Height: 6000, Size: 30 << 20})
	})
	f := m.File
	if f == nil || m.Audio != nil || m.Text != "what plant is this?" {
		t.Fatalf("heard %+v, want a photo with its caption", m)
	}
	if !f.Photo || f.Width != 1280 || f.Height != 960 || f.Size != int64(len(medium)) || f.MIME != "image/jpeg" {
		t.Errorf("the photo is %+v, want the 1280×960 size", f)
	}
	data, err := f.Fetch(context.Background(), 20<<20)
	if err != nil || !bytes.Equal(data, medium) {
		t.Errorf("Fetch = %q, %v; want the medium size's bytes", data, err)
	}

	s2, b2 := newBot(t, Options{})
	m = hear(t, b2, func() { s2.SendDocument(42, 7, []byte("%PDF-1.7"), "application/pdf", "lease.pdf", "") })
	if f := m.File; f == nil || f.Photo || f.FileName != "lease.pdf" || f.MIME != "application/pdf" || f.Size != 8 {
		t.Errorf("heard the document as %+v", m.File)
	}
}
