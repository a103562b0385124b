package sqlstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestConversationsStartAfreshAndKeepTheirSummaryA6: a chat is one
// conversation until /new; a summary is kept for its conversation only,
// never replaced by one covering less, and refused once /new started
// another; messages are read forward between two ids.
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

	c, err := db.Conversation(ctx, "telegram:1")
	if err != nil || c.After != 0 || c.Summary != "" || !c.BegunAt.IsZero() || c.From() != 0 {
		t.Fatalf("a chat never started afresh: %+v %v", c, err)
	}
	ids := say("telegram:1", 10)
	say("telegram:2", 3) // another chat's messages are not this one's

	if err := db.SetSummary(ctx, "telegram:1", 0, "they talked about rent", ids[5], at); err != nil {
		t.Fatal(err)
	}
	c, _ = db.Conversation(ctx, "telegram:1")
	if c.Summary != "they talked about rent" || c.Covered != ids[5] || !c.SummarizedAt.Equal(at) || c.From() != ids[5] {
		t.Errorf("after the first summary: %+v", c)
	}
	if err := db.SetSummary(ctx, "telegram:1", 0, "older", ids[3], at); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
		t.Errorf("a summary covering less than the one kept: %v, want ECONFLICT", err)
	}
	if err := db.SetSummary(ctx, "telegram:1", 0, "nothing", 0, at); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("a summary covering nothing: %v, want EINVALID", err)
	}

	msgs, err := db.MessagesAfter(ctx, "telegram:1", ids[5], ids[8], 100)
	if err != nil || len(msgs) != 3 || msgs[0].ID != ids[6] || msgs[2].ID != ids[8] {
		t.Errorf("messages after %d up to %d: %d, %v", ids[5], ids[8], len(msgs), err)
	}
	if msgs, _ = db.MessagesAfter(ctx, "telegram:1", ids[5], 0, 2); len(msgs) != 2 || msgs[1].ID != ids[7] {
		t.Errorf("the first two after %d: %+v", ids[5], msgs)
	}

	fresh, err := db.NewConversation(ctx, "telegram:1", at.Add(time.Hour))
	if err != nil || fresh.After != ids[9] || fresh.Summary != "" || !fresh.BegunAt.Equal(at.Add(time.Hour)) || fresh.From() != ids[9] {
		t.Fatalf("/new: %+v %v", fresh, err)
	}
	if again, err := db.NewConversation(ctx, "telegram:1", at.Add(2*time.Hour)); err != nil || again != fresh {
		t.Errorf("/new twice with nothing said between: %+v %v, want %+v", again, err, fresh)
	}
	if err := db.SetSummary(ctx, "telegram:1", 0, "late", ids[9], at); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
		t.Errorf("a summary of the conversation before /new: %v, want ECONFLICT", err)
	}
	later := say("telegram:1", 2)
	if err := db.SetSummary(ctx, "telegram:1", fresh.After, "the new one", later[0], at); err != nil {
		t.Fatal(err)
	}
	if c, _ = db.Conversation(ctx, "telegram:1"); c.Summary != "the new one" || c.After != ids[9] {
		t.Errorf("the new conversation's summary: %+v", c)
	}
	if c, _ = db.Conversation(ctx, "telegram:2"); c.After != 0 || c.Summary != "" {
		t.Errorf("another chat: %+v", c)
	}

	chats, err := db.ChatConversations(ctx, 10)
	if err != nil || len(chats) != 2 {
		t.Fatalf("the chats: %+v %v", chats, err)
	}
	if chats[0].Chat != "telegram:1" || chats[0].Messages != 12 || chats[0].Summary != "the new one" || chats[0].LastAt.IsZero() {
		t.Errorf("the latest chat: %+v", chats[0])
	}
	if chats[1].Chat != "telegram:2" || chats[1].Messages != 3 || chats[1].After != 0 {
		t.Errorf("the other chat: %+v", chats[1])
	}
	if one, _ := db.ChatConversations(ctx, 1); len(one) != 1 {
		t.Errorf("a limit of one listed %d", len(one))
	}
}
