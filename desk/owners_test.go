package desk

import (
	"context"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/channels"
)

// TestStrangersAndPairingCH1: with no owner, the code pairs the first
// contact; anyone else gets one refusal and no model call.
func TestStrangersAndPairingCH1(t *testing.T) {
	d, plat, f, db := setup(t)
	ctx := context.Background()
	code := d.PairingCode("test")
	if len(code) != 6 {
		t.Fatalf("pairing code %q", code)
	}
	d.HandleMessage(ctx, channels.Message{Chat: "test:9", User: "test:9", Text: "hello?"})
	d.HandleMessage(ctx, channels.Message{Chat: "test:9", User: "test:9", Text: "hello again"})
	d.HandleMessage(ctx, channels.Message{Chat: "test:9", User: "test:9", Text: "/pair 000000x"})
	if got := plat.to("test:9"); len(got) != 1 || !strings.Contains(got[0], "private assistant") {
		t.Errorf("stranger got %q", got)
	}
	d.HandleMessage(ctx, channels.Message{Chat: "test:5", User: "test:5", Text: "/pair " + code})
	if got := plat.to("test:5"); len(got) != 1 || !strings.Contains(got[0], "Paired") {
		t.Errorf("pairing: %q", got)
	}
	if owners, _ := db.Owners(ctx); len(owners) != 1 || owners[0] != "test:5" {
		t.Errorf("owners saved: %v", owners)
	}
	// The code is single-use.
	d.HandleMessage(ctx, channels.Message{Chat: "test:7", User: "test:7", Text: "/pair " + code})
	if got := plat.to("test:7"); len(got) != 1 || strings.Contains(got[0], "Paired") {
		t.Errorf("second pairing: %q", got)
	}
	d.Drain(ctx) // a turn a stranger started by mistake would have ended by now
	if len(f.Requests()) != 0 {
		t.Errorf("strangers reached the model: %d calls", len(f.Requests()))
	}
}
