package sqlstore

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestVoiceNoteKeptUntilTranscribedV1: a voice note waits in the inbox
// with its audio, across a reopen; the owner told is remembered; once
// transcribed, the text is kept and the audio dropped.
func TestVoiceNoteKeptUntilTranscribedV1(t *testing.T) {
	ctx := context.Background()
	path := testTarget(t)
	db := openTest(t, path)
	ogg := []byte("OggS\x00fake-audio")
	id, err := db.Receive(ctx, store.Incoming{Chat: "telegram:1", User: "telegram:1", Name: "Ann",
		Audio: &store.IncomingAudio{Data: ogg, MIME: "audio/ogg", Duration: 2500 * time.Millisecond, Voice: true}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Receive(ctx, store.Incoming{Chat: "telegram:1", User: "telegram:1", Text: "plain text"}); err != nil {
		t.Fatal(err)
	}
	if err := db.ToldNoTranscription(ctx, id); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = openTest(t, path)
	w, err := db.Waiting(ctx)
	if err != nil || len(w) != 2 {
		t.Fatalf("Waiting = %+v, %v", w, err)
	}
	a := w[0].Audio
	if a == nil || !bytes.Equal(a.Data, ogg) || a.MIME != "audio/ogg" || a.Duration != 2500*time.Millisecond || !a.Voice || !a.Told {
		t.Errorf("the kept note: %+v", a)
	}
	if w[1].Audio != nil {
		t.Errorf("a text message has audio: %+v", w[1].Audio)
	}
	if err := db.Transcribed(ctx, id, "buy oat milk"); err != nil {
		t.Fatal(err)
	}
	w, _ = db.Waiting(ctx)
	if h := w[0].Audio; w[0].Text != "buy oat milk" || h == nil || !h.Heard || h.Data != nil || !h.Voice || h.MIME != "audio/ogg" {
		t.Errorf("after transcription: %+v %+v", w[0], h)
	}
	if w[1].Audio != nil {
		t.Errorf("a text message became audio: %+v", w[1].Audio)
	}
	if err := db.Transcribed(ctx, 999, "x"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("an unknown id: %v", err)
	}
}
