package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestChatAgentSwitchA4: a chat switched to an agent stays switched until
// switched again or back; an agent that does not exist is refused.
func TestChatAgentSwitchA4(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	at := time.Date(2026, 12, 6, 19, 0, 0, 0, time.UTC)
	for _, name := range []string{"default", "inbox"} {
		if err := db.CreateAgent(ctx, store.Agent{Name: name, Description: name}); err != nil {
			t.Fatal(err)
		}
	}
	if a, err := db.ChatAgent(ctx, "telegram:1"); err != nil || a != "" {
		t.Fatalf("a chat never switched: %q %v", a, err)
	}
	if err := db.SetChatAgent(ctx, "telegram:1", "inbox", at); err != nil {
		t.Fatal(err)
	}
	if err := db.SetChatAgent(ctx, "telegram:1", "nobody", at); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("switching to no agent: %v, want ENOTFOUND", err)
	}
	if a, _ := db.ChatAgent(ctx, "telegram:1"); a != "inbox" {
		t.Errorf("after the switch: %q", a)
	}
	if err := db.SetChatAgent(ctx, "discord:2", "default", at); err != nil {
		t.Fatal(err)
	}
	if all, err := db.ChatAgentSwitches(ctx); err != nil || len(all) != 2 || all["discord:2"] != "default" {
		t.Errorf("every switch: %v %v", all, err)
	}
	if err := db.SetChatAgent(ctx, "telegram:1", "", at); err != nil {
		t.Fatal(err)
	}
	if a, _ := db.ChatAgent(ctx, "telegram:1"); a != "" {
		t.Errorf("after switching back: %q", a)
	}
}
