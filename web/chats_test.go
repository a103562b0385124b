package web

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// chatsOver is the Chats tab over a real store.
type chatsOver struct{ db *sqlstore.DB }

func (o chatsOver) Chats(ctx context.Context) ([]ChatRow, error) {
	list, err := o.db.ChatConversations(ctx, 50)
	var out []ChatRow
	for _, c := range list {
		out = append(out, ChatRow{Chat: c.Chat, Agent: c.Agent, Messages: c.Messages, LastAt: c.LastAt, BegunAt: c.BegunAt, Summary: c.Summary, SummarizedAt: c.SummarizedAt})
	}
	return out, err
}

func (o chatsOver) NewConversation(ctx context.Context, chat, agent string) error {
	_, err := o.db.NewConversation(ctx, chat, agent, time.Now())
	return err
}

// TestChatsShowSummariesAndStartAfreshA6: the Chats tab lists each chat
// with its message count and running summary (escaped: the model wrote
// it), and its button starts a new conversation as /new does.
func TestChatsShowSummariesAndStartAfreshA6(t *testing.T) {
	ctx := context.Background()
	db := openStore(t)
	var last int64
	for i, chat := range []string{"telegram:7", "telegram:7", "telegram:7", "discord:9"} {
		id, err := db.AppendMessage(ctx, store.Message{Chat: chat, Agent: "default", Role: "user", Content: []byte(`{"role":"user","text":"hello"}`)})
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			last = id
		}
	}
	if err := db.SetSummary(ctx, "telegram:7", "default", 0, "The landlord is Mr Okafor. <script>alert(1)</script>", last, time.Now()); err != nil {
		t.Fatal(err)
	}
	d, sess, csrf := dashboardSignedIn(t, Options{Chats: chatsOver{db}})
	_, body := d.get(t, "/chats", sess)
	wantIn(t, "the Chats tab", body, `<code>telegram:7</code>`, `<code>discord:9</code>`, "The landlord is Mr Okafor. &lt;script&gt;", "none: everything fits",
		`action="/chats/new"`, `name="chat" value="telegram:7"`, `name="agent" value="default"`, `href="/agents/default"`, "from the first message")

	res := d.post(t, "/chats/new", url.Values{"csrf": {csrf}, "chat": {"telegram:7"}, "agent": {"default"}}, sess, "")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/chats" || noteOf(res) != "A new conversation of agent default begins in telegram:7: its next turns there no longer see what was said before." {
		t.Fatalf("start afresh: %s to %q, note %q", res.Status, res.Header.Get("Location"), noteOf(res))
	}
	if c, _ := db.Conversation(ctx, "telegram:7", "default"); c.BegunAt.IsZero() || c.Summary != "" {
		t.Errorf("after Start afresh: %+v", c)
	}
	_, body = d.get(t, "/chats", sess)
	wantIn(t, "the Chats tab after Start afresh", body, "began ")
	if res := d.post(t, "/chats/new", url.Values{"csrf": {csrf}}, sess, ""); res.StatusCode != http.StatusBadRequest {
		t.Errorf("Start afresh without a chat: %s", res.Status)
	}
	if res, _ := d.get(t, "/chats", d.signIn(t)); res.StatusCode != http.StatusOK {
		t.Errorf("another session: %s", res.Status)
	}
}
