package sqlstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestConversationsStartAfreshAndKeepTheirSummaryA6: an agent's
// conversation in a chat runs until /new; a summary is kept for its
// conversation only, never replaced by one covering less, and refused once
// /new started another; another agent in the same chat has its own;
// messages are read forward between two ids, one agent's or everyone's.
func TestConversationsStartAfreshAndKeepTheirSummaryA6(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	at := time.Date(2026, 12, 6, 18, 0, 0, 0, time.UTC)
	say := func(chat string, n int) []int64 {
		var ids []int64
		for i := range n {
			id, err := db.AppendMessage(ctx, store.Message{Chat: chat, Agent: "default", Role: "user", Content: []byte(fmt.Sprintf(`{"role":"user","text":"m%d"}`, i))})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		return ids
	}

	c, err := db.Conversation(ctx, "telegram:1", "default")
	if err != nil || c.After != 0 || c.Summary != "" || !c.BegunAt.IsZero() || c.From() != 0 {
		t.Fatalf("a chat never started afresh: %+v %v", c, err)
	}
	ids := say("telegram:1", 10)
	say("telegram:2", 3) // another chat's messages are not this one's

	if err := db.SetSummary(ctx, "telegram:1", "default", 0, "they talked about rent", ids[5], at); err != nil {
		t.Fatal(err)
	}
	c, _ = db.Conversation(ctx, "telegram:1", "default")
	if c.Summary != "they talked about rent" || c.Covered != ids[5] || !c.SummarizedAt.Equal(at) || c.From() != ids[5] {
		t.Errorf("after the first summary: %+v", c)
	}
	if err := db.SetSummary(ctx, "telegram:1", "default", 0, "older", ids[3], at); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
		t.Errorf("a summary covering less than the one kept: %v, want ECONFLICT", err)
	}
	if err := db.SetSummary(ctx, "telegram:1", "default", 0, "nothing", 0, at); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("a summary covering nothing: %v, want EINVALID", err)
	}

	msgs, err := db.MessagesAfter(ctx, "telegram:1", "default", ids[5], ids[8], 100)
	if err != nil || len(msgs) != 3 || msgs[0].ID != ids[6] || msgs[2].ID != ids[8] {
		t.Errorf("messages after %d up to %d: %d, %v", ids[5], ids[8], len(msgs), err)
	}
	if msgs, _ = db.MessagesAfter(ctx, "telegram:1", "default", ids[5], 0, 2); len(msgs) != 2 || msgs[1].ID != ids[7] {
		t.Errorf("the first two after %d: %+v", ids[5], msgs)
	}

	fresh, err := db.NewConversation(ctx, "telegram:1", "default", at.Add(time.Hour))
	if err != nil || fresh.After != ids[9] || fresh.Summary != "" || !fresh.BegunAt.Equal(at.Add(time.Hour)) || fresh.From() != ids[9] {
		t.Fatalf("/new: %+v %v", fresh, err)
	}
	if again, err := db.NewConversation(ctx, "telegram:1", "default", at.Add(2*time.Hour)); err != nil || again != fresh {
		t.Errorf("/new twice with nothing said between: %+v %v, want %+v", again, err, fresh)
	}
	if err := db.SetSummary(ctx, "telegram:1", "default", 0, "late", ids[9], at); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
		t.Errorf("a summary of the conversation before /new: %v, want ECONFLICT", err)
	}
	later := say("telegram:1", 2)
	if err := db.SetSummary(ctx, "telegram:1", "default", fresh.After, "the new one", later[0], at); err != nil {
		t.Fatal(err)
	}
	if c, _ = db.Conversation(ctx, "telegram:1", "default"); c.Summary != "the new one" || c.After != ids[9] {
		t.Errorf("the new conversation's summary: %+v", c)
	}
	if c, _ = db.Conversation(ctx, "telegram:2", "default"); c.After != 0 || c.Summary != "" {
		t.Errorf("another chat: %+v", c)
	}

	// Another agent in the same chat: its own messages, its own
	// conversation, untouched by the default agent's /new and summary.
	id, err := db.AppendMessage(ctx, store.Message{Chat: "telegram:1", Agent: "inbox", Role: "user", Content: []byte(`{"role":"user","text":"mail"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if c, _ = db.Conversation(ctx, "telegram:1", "inbox"); c.After != 0 || c.Summary != "" {
		t.Errorf("the other agent's conversation: %+v", c)
	}
	if msgs, _ := db.MessagesAfter(ctx, "telegram:1", "inbox", 0, 0, 100); len(msgs) != 1 || msgs[0].ID != id {
		t.Errorf("the other agent's messages: %+v", msgs)
	}
	if msgs, _ := db.MessagesAfter(ctx, "telegram:1", "", ids[9], 0, 100); len(msgs) != 3 {
		t.Errorf("everyone's messages after /new: %d, want 3", len(msgs))
	}
	if err := db.SetSummary(ctx, "telegram:1", "inbox", 0, "mail", id, at); err != nil {
		t.Fatal(err)
	}
	if c, _ = db.Conversation(ctx, "telegram:1", "default"); c.Summary != "the new one" {
		t.Errorf("the default agent's summary after the other's: %+v", c)
	}

	chats, err := db.ChatConversations(ctx, 10)
	if err != nil || len(chats) != 3 {
		t.Fatalf("the chats: %+v %v", chats, err)
	}
	if chats[0].Chat != "telegram:1" || chats[0].Agent != "inbox" || chats[0].Messages != 1 || chats[0].Summary != "mail" || chats[0].LastAt.IsZero() {
		t.Errorf("the latest conversation: %+v", chats[0])
	}
	if chats[1].Chat != "telegram:1" || chats[1].Agent != "default" || chats[1].Messages != 12 || chats[1].Summary != "the new one" {
		t.Errorf("the default agent's: %+v", chats[1])
	}
	if chats[2].Chat != "telegram:2" || chats[2].Messages != 3 || chats[2].After != 0 {
		t.Errorf("the other chat: %+v", chats[2])
	}
	if one, _ := db.ChatConversations(ctx, 1); len(one) != 1 {
		t.Errorf("a limit of one listed %d", len(one))
	}
}
