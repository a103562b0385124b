package sqlstore

import (
	"context"
	"testing"
)

// TestDelegateSessionsPerAgentAndChatM5: a delegate's session id is kept
// per (agent, chat), replaced by the next, forgotten with "", and survives
// a restart.
func TestDelegateSessionsPerAgentAndChatM5(t *testing.T) {
	ctx := context.Background()
	path := testTarget(t)
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if id, err := db.DelegateSession(ctx, "coder", "telegram:1"); err != nil || id != "" {
		t.Fatalf("a new store has a session: %q %v", id, err)
	}
	for _, s := range []struct{ agent, chat, id string }{
		{"coder", "telegram:1", "s-old"},
		{"coder", "telegram:1", "s-1"},
		{"coder", "telegram:2", "s-2"},
		{"writer", "telegram:1", "w-1"},
	} {
		if err := db.SetDelegateSession(ctx, s.agent, s.chat, s.id); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	if db, err = Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, w := range []struct{ agent, chat, id string }{
		{"coder", "telegram:1", "s-1"},
		{"coder", "telegram:2", "s-2"},
		{"writer", "telegram:1", "w-1"},
		{"writer", "telegram:2", ""},
	} {
		if id, err := db.DelegateSession(ctx, w.agent, w.chat); err != nil || id != w.id {
			t.Errorf("session of %s in %s: %q %v, want %q", w.agent, w.chat, id, err, w.id)
		}
	}
	if err := db.SetDelegateSession(ctx, "coder", "telegram:1", ""); err != nil {
		t.Fatal(err)
	}
	if id, _ := db.DelegateSession(ctx, "coder", "telegram:1"); id != "" {
		t.Errorf("a forgotten session is still kept: %q", id)
	}
}
