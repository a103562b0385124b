package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

// ST2: the replica holding a chat reads that chat's waiting messages
// alone, oldest first, with when each came; a message whose turn began
// says so to whoever answers it next, and one answered meanwhile cannot
// be begun again.
func TestWaitingInOneChatST2(t *testing.T) {
	db := openTest(t, testTarget(t))
	now := time.Date(2026, 12, 4, 9, 30, 0, 0, time.UTC)
	db.now = func() time.Time { return now }
	ctx := context.Background()
	ids := map[string]int64{}
	for _, m := range []store.Incoming{
		{Chat: "telegram:1", User: "telegram:1", Text: "first"},
		{Chat: "telegram:2", User: "telegram:2", Text: "elsewhere"},
		{Chat: "telegram:1", User: "telegram:1", Text: "second"},
	} {
		id, err := db.Receive(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		ids[m.Text] = id
		now = now.Add(time.Second)
	}

	got, err := db.WaitingIn(ctx, "telegram:1")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Text != "first" || got[1].Text != "second" {
		t.Fatalf("WaitingIn(telegram:1) = %+v, want first then second", got)
	}
	if want := time.Date(2026, 12, 4, 9, 30, 0, 0, time.UTC); !got[0].Received.Equal(want) || got[0].Begun {
		t.Errorf("first: received %v begun %v, want %v and not begun", got[0].Received, got[0].Begun, want)
	}

	if err := db.Begin(ctx, ids["first"]); err != nil {
		t.Fatal(err)
	}
	got, err = db.WaitingIn(ctx, "telegram:1")
	if err != nil {
		t.Fatal(err)
	}
	if !got[0].Begun || got[1].Begun {
		t.Errorf("after Begin(first): begun = %v, %v; want true, false", got[0].Begun, got[1].Begun)
	}

	if err := db.Answered(ctx, ids["first"]); err != nil {
		t.Fatal(err)
	}
	if err := db.Begin(ctx, ids["first"]); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("Begin of an answered message = %v, want ENOTFOUND", err)
	}
	all, err := db.Waiting(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].Text != "elsewhere" || all[1].Text != "second" {
		t.Errorf("Waiting = %+v, want elsewhere then second", all)
	}
}
