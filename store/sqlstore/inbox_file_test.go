package sqlstore

import (
	"bytes"
	"context"
	"testing"

	"github.com/jarvisbot/jarvisbot/store"
)

// TestFileKeptWithItsMessageCH4: a photo waits in the inbox with its
// bytes across a reopen, so an interrupted turn is answered with it; a
// text message beside it has none.
func TestFileKeptWithItsMessageCH4(t *testing.T) {
	ctx := context.Background()
	path := testTarget(t)
	db := openTest(t, path)
	jpeg := []byte("\xff\xd8\xff\xe0photo")
	if _, err := db.Receive(ctx, store.Incoming{Chat: "telegram:1", User: "telegram:1", Text: "what plant is this?",
		File: &store.IncomingFile{Data: jpeg, MIME: "image/jpeg", Photo: true}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Receive(ctx, store.Incoming{Chat: "telegram:1", User: "telegram:1", Text: "plain text"}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = openTest(t, path)
	w, err := db.Waiting(ctx)
	if err != nil || len(w) != 2 {
		t.Fatalf("Waiting = %+v, %v", w, err)
	}
	if f := w[0].File; f == nil || !bytes.Equal(f.Data, jpeg) || f.MIME != "image/jpeg" || !f.Photo || w[0].Text != "what plant is this?" {
		t.Errorf("the kept photo: %+v", f)
	}
	if w[1].File != nil || w[0].Audio != nil {
		t.Errorf("a text message has a file (%+v), or the photo audio (%+v)", w[1].File, w[0].Audio)
	}
}
