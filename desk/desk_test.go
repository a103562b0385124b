package desk

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/approvals"
	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// chatPlatform stands in for a messaging platform: it records what the
// desk sends, and can fail sends.
type chatPlatform struct {
	name string // "test" when empty
	mu   sync.Mutex
	sent []channels.Outgoing
	fail bool
}

func (p *chatPlatform) Name() string {
	if p.name == "" {
		return "test"
	}
	return p.name
}
func (p *chatPlatform) Run(ctx context.Context, _ channels.Handler) error { <-ctx.Done(); return nil }
func (p *chatPlatform) Edit(context.Context, string, string, string, [][]channels.Button) error {
	return nil
}
func (p *chatPlatform) Send(_ context.Context, m channels.Outgoing) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail {
		return "", fmt.Errorf("platform down")
	}
	p.sent = append(p.sent, m)
	return fmt.Sprint(len(p.sent)), nil
}
func (p *chatPlatform) to(chat string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, m := range p.sent {
		if m.Chat == chat {
			out = append(out, m.Text)
		}
	}
	return out
}

func setup(t *testing.T, owners ...string) (*Desk, *chatPlatform, *fakellm.Server, *sqlstore.DB) {
	t.Helper()
	return setupWith(t, func(db *sqlstore.DB) Store { return db }, owners...)
}

// setupWith builds a desk on the store that wrap makes of the database.
func setupWith(t *testing.T, wrap func(*sqlstore.DB) Store, owners ...string) (*Desk, *chatPlatform, *fakellm.Server, *sqlstore.DB) {
	t.Helper()
	return setupOpts(t, wrap, func(*Options) {}, owners...)
}

// setupOpts is setupWith whose options mod changes before the desk is made.
func setupOpts(t *testing.T, wrap func(*sqlstore.DB) Store, mod func(*Options), owners ...string) (*Desk, *chatPlatform, *fakellm.Server, *sqlstore.DB) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "j.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.CreateAgent(ctx, store.Agent{Name: "default", Description: "assistant"})
	f := fakellm.New(t)
	p, err := llm.New(llm.Config{Provider: "anthropic", Model: "m", APIKey: "k", BaseURL: f.AnthropicURL(), MaxRetries: 0, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	cat := catalog.New()
	rt := &agents.Runtime{Catalog: cat.View, Store: db, Model: func(string) (agents.Model, error) { return agents.Model{Provider: p}, nil }}
	plat := &chatPlatform{}
	opt := Options{Runtime: rt, Approvals: approvals.New(approvals.Options{Store: db}), Store: wrap(db), Owners: owners}
	mod(&opt)
	d, err := New(ctx, opt, plat)
	if err != nil {
		t.Fatal(err)
	}
	return d, plat, f, db
}

// waitFor polls cond until it holds; after 10 s it fails the test,
// naming what it waited for and what cond last saw.
func waitFor(t *testing.T, what string, cond func() (ok bool, saw any)) {
	t.Helper()
	testwait.For(t, 10*time.Second, what, cond)
}

// TestOrderPerChatCH1: messages of one chat are answered in order, one at
// a time, none dropped; chats run side by side.
func TestOrderPerChatCH1(t *testing.T) {
	d, plat, f, _ := setup(t, "test:1", "test:2")
	ctx := context.Background()
	const n = 5
	for i := 0; i < 2*n; i++ {
		f.Push(fakellm.Step{Text: "answer"})
	}
	for i := 0; i < n; i++ {
		for _, chat := range []string{"test:1", "test:2"} {
			d.HandleMessage(ctx, channels.Message{Chat: chat, User: chat, Text: fmt.Sprintf("%s message %d", chat, i)})
		}
	}
	waitFor(t, "every answer", func() (bool, any) {
		one, two := plat.to("test:1"), plat.to("test:2")
		return len(one) == n && len(two) == n, [][]string{one, two}
	})
	// The model saw each chat's messages in order.
	seen := map[string][]string{}
	for _, r := range f.Requests() {
		last := r.Messages[len(r.Messages)-1].Text
		first := r.Messages[0].Text
		seen[first] = append(seen[first], last)
	}
	if len(seen) != 2 {
		t.Fatalf("the model saw %d chats, want 2: %v", len(seen), seen)
	}
	for first, msgs := range seen {
		chat := strings.Fields(first)[0]
		if len(msgs) != n {
			t.Errorf("the model saw %d turns of %s, want %d: %v", len(msgs), chat, n, msgs)
		}
		for i, m := range msgs {
			if m != fmt.Sprintf("%s message %d", chat, i) {
				t.Errorf("order: %v", msgs)
				break
			}
		}
	}
}

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

// TestUndeliveredKeptCH1: a reply the platform refuses is kept and sent
// later, never lost.
func TestUndeliveredKeptCH1(t *testing.T) {
	d, plat, f, db := setup(t, "test:1")
	ctx := context.Background()
	plat.fail = true
	f.Push(fakellm.Step{Text: "the important answer"})
	d.HandleMessage(ctx, channels.Message{Chat: "test:1", User: "test:1", Text: "tell me"})
	waitFor(t, "the kept reply", func() (bool, any) { u, err := db.Undelivered(ctx); return len(u) == 1, fmt.Sprint(u, err) })
	plat.mu.Lock()
	plat.fail = false
	plat.mu.Unlock()
	d.RetryUndelivered(ctx)
	if got := plat.to("test:1"); len(got) != 1 || !strings.Contains(got[0], "the important answer") {
		t.Errorf("after retry: %q", got)
	}
	if u, _ := db.Undelivered(ctx); len(u) != 0 {
		t.Errorf("still kept: %v", u)
	}
}

// lookCounter is the real store, counting the looks for kept replies.
type lookCounter struct {
	*sqlstore.DB
	looks atomic.Int32
}

func (c *lookCounter) Undelivered(ctx context.Context) ([]store.Undelivered, error) {
	c.looks.Add(1)
	return c.DB.Undelivered(ctx)
}

// TestRetryLooksOnlyAfterAReplyWasKept: an idle service does not query the
// store on every retry tick; a reply kept since the last look is retried.
func TestRetryLooksOnlyAfterAReplyWasKept(t *testing.T) {
	var lc *lookCounter
	d, plat, f, _ := setupWith(t, func(db *sqlstore.DB) Store { lc = &lookCounter{DB: db}; return lc }, "test:1")
	ctx := context.Background()
	d.RetryUndelivered(ctx) // at start, the last run may have left some
	d.RetryUndelivered(ctx)
	d.RetryUndelivered(ctx)
	if n := lc.looks.Load(); n != 1 {
		t.Fatalf("%d looks in the store with nothing kept, want 1 (at start)", n)
	}
	plat.mu.Lock()
	plat.fail = true
	plat.mu.Unlock()
	f.Push(fakellm.Step{Text: "kept answer"})
	d.HandleMessage(ctx, channels.Message{Chat: "test:1", User: "test:1", Text: "tell me"})
	waitFor(t, "the kept reply", func() (bool, any) { u, err := lc.DB.Undelivered(ctx); return len(u) == 1, fmt.Sprint(u, err) })
	d.RetryUndelivered(ctx) // the platform still fails: kept for the next tick
	plat.mu.Lock()
	plat.fail = false
	plat.mu.Unlock()
	d.RetryUndelivered(ctx)
	d.RetryUndelivered(ctx)
	if n := lc.looks.Load(); n != 3 {
		t.Errorf("%d looks, want 3: at start, after the reply was kept, after the retry failed", n)
	}
	if got := plat.to("test:1"); len(got) != 1 || !strings.Contains(got[0], "kept answer") {
		t.Errorf("sent after the retries: %q, want the kept answer once", got)
	}
}

// TestInboxSurvivesRestartCH1: a message received and not yet answered
// when the service stops is answered after the restart, once.
func TestInboxSurvivesRestartCH1(t *testing.T) {
	d, plat, f, db := setup(t, "test:1")
	ctx := context.Background()
	// Received, stored, but the service stopped before its turn.
	if _, err := db.Receive(ctx, store.Incoming{Chat: "test:1", User: "test:1", Text: "before the crash"}); err != nil {
		t.Fatal(err)
	}
	f.Push(fakellm.Step{Text: "answered after the restart"})
	if err := d.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the answer", func() (bool, any) { got := plat.to("test:1"); return len(got) == 1, got })
	waitFor(t, "the inbox to empty", func() (bool, any) { w, err := db.Waiting(ctx); return err == nil && len(w) == 0, fmt.Sprint(w, err) })
	if got := plat.to("test:1"); !strings.Contains(got[0], "answered after the restart") {
		t.Errorf("answer %q", got)
	}
}

// TestDeliveredTwiceAnsweredOnceST2: a message, a slash command and a
// press that come again with the same delivery id (Telegram redelivering,
// or a second replica's copy) are acted on once, also after the message
// has left the inbox; a message without a delivery id is always new.
func TestDeliveredTwiceAnsweredOnceST2(t *testing.T) {
	d, plat, f, _ := setup(t, "test:1")
	ctx := context.Background()
	f.Push(fakellm.Step{Text: "first answer"}, fakellm.Step{Text: "second answer"}, fakellm.Step{Text: "third answer"})
	hello := channels.Message{Chat: "test:1", User: "test:1", Text: "hello", Delivery: "7"}
	d.HandleMessage(ctx, hello)
	d.HandleMessage(ctx, hello)
	help := channels.Message{Chat: "test:1", User: "test:1", Text: "/help", Delivery: "8"}
	d.HandleMessage(ctx, help)
	d.HandleMessage(ctx, help)
	pressed := 0
	press := channels.Press{Chat: "test:1", User: "test:1", Data: "not-ours", Delivery: "9",
		Answer: func(context.Context, string) error { pressed++; return nil }}
	d.HandlePress(ctx, press)
	d.HandlePress(ctx, press)
	// A later message of the chat is answered after anything queued
	// before it: once it is answered, a second turn would have shown.
	d.HandleMessage(ctx, channels.Message{Chat: "test:1", User: "test:1", Text: "next", Delivery: "10"})
	waitFor(t, "the next message's answer", func() (bool, any) {
		sent := plat.to("test:1")
		return slices.Contains(sent, "second answer"), sent
	})
	// Redelivered after its answer left the inbox: still once.
	d.HandleMessage(ctx, hello)
	d.HandleMessage(ctx, channels.Message{Chat: "test:1", User: "test:1", Text: "no delivery id"})
	waitFor(t, "the last message's answer", func() (bool, any) {
		sent := plat.to("test:1")
		return slices.Contains(sent, "third answer"), sent
	})
	sent := plat.to("test:1")
	var helps int
	for _, s := range sent {
		if strings.HasPrefix(s, "Write to me") {
			helps++
		}
	}
	if len(f.Requests()) != 3 || helps != 1 || pressed != 1 || len(sent) != 4 {
		t.Errorf("%d turns (want 3), %d /help answers, %d press answers (want 1 each); sent %q", len(f.Requests()), helps, pressed, sent)
	}
}

// TestKeptRepliesOneReplicaAtATimeST2: with several processes on one
// store, a replica sends kept replies again only while it holds the
// lease for it: while another holds it, nothing goes out twice and the
// reply stays kept for the next tick; once free, it goes out once.
func TestKeptRepliesOneReplicaAtATimeST2(t *testing.T) {
	d, plat, f, db := setup(t, "test:1")
	d.opt.Leases = db
	ctx := context.Background()
	other, err := sqlstore.Open(ctx, db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	plat.mu.Lock()
	plat.fail = true
	plat.mu.Unlock()
	f.Push(fakellm.Step{Text: "the kept answer"})
	d.HandleMessage(ctx, channels.Message{Chat: "test:1", User: "test:1", Text: "tell me"})
	waitFor(t, "the kept reply", func() (bool, any) { u, err := db.Undelivered(ctx); return len(u) == 1, fmt.Sprint(u, err) })
	plat.mu.Lock()
	plat.fail = false
	plat.mu.Unlock()

	held, ok, err := other.TryLead(ctx, leaseKeptReplies)
	if err != nil || !ok {
		t.Fatalf("the other replica's lease: %v %v", ok, err)
	}
	d.RetryUndelivered(ctx)
	if got := plat.to("test:1"); len(got) != 0 {
		t.Fatalf("sent while another replica held the lease: %q", got)
	}
	held.Release()
	d.RetryUndelivered(ctx)
	d.RetryUndelivered(ctx)
	if got := plat.to("test:1"); len(got) != 1 || !strings.Contains(got[0], "the kept answer") {
		t.Errorf("after the lease was free: %q, want the kept answer once", got)
	}
}

// elsewhereQueue is a replicas' queue whose chats are answered by another
// process: it takes messages, never holds a chat here, and passes a
// /cancel on when held says another replica holds the chat.
type elsewhereQueue struct {
	held      bool
	added     atomic.Int32
	cancelled atomic.Int32
}

func (q *elsewhereQueue) Add(context.Context, string, int64) error { q.added.Add(1); return nil }
func (q *elsewhereQueue) Hold(ctx context.Context, chat string) (context.Context, func(), error) {
	<-ctx.Done()
	return nil, nil, ctx.Err()
}
func (q *elsewhereQueue) Cancel(context.Context, string) (bool, error) {
	if q.held {
		q.cancelled.Add(1)
	}
	return q.held, nil
}

// TestCancelWithReplicasST2: with replicas, /cancel on a process running
// no turn of the chat is passed to the replica holding the chat, which
// answers it; with no replica holding it, nothing is running.
func TestCancelWithReplicasST2(t *testing.T) {
	for _, tc := range []struct {
		name          string
		queue, held   bool
		want          []string
		wantCancelled int32
	}{
		{"one process", false, false, []string{"Nothing is running."}, 0},
		{"replicas, chat held elsewhere", true, true, nil, 1},
		{"replicas, chat held nowhere", true, false, []string{"Nothing is running."}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := &elsewhereQueue{held: tc.held}
			d, plat, _, _ := setupOpts(t, func(db *sqlstore.DB) Store { return db }, func(o *Options) {
				if tc.queue {
					o.Queue = q
				}
			}, "test:1")
			ctx := context.Background()
			d.HandleMessage(ctx, channels.Message{Chat: "test:1", User: "test:1", ID: "c1", Text: "/cancel"})
			// /help after it: its answer shows /cancel's is in, if any.
			d.HandleMessage(ctx, channels.Message{Chat: "test:1", User: "test:1", ID: "c2", Text: "/help"})
			waitFor(t, "the answer to /help", func() (bool, any) { got := plat.to("test:1"); return len(got) == len(tc.want)+1, got })
			if got := plat.to("test:1")[:len(tc.want)]; !slices.Equal(got, tc.want) {
				t.Errorf("answers %q, want %q", got, tc.want)
			}
			if n := q.cancelled.Load(); n != tc.wantCancelled {
				t.Errorf("/cancel passed on %d times, want %d", n, tc.wantCancelled)
			}
			if n := q.added.Load(); n != 0 {
				t.Errorf("/cancel was queued as a message %d times", n)
			}
		})
	}
}

// TestQueueDepthWithReplicasST2: with replicas the queue depth this
// replica reports is the messages waiting behind the turn it runs in a
// chat it holds, and nothing once it lets the chat go.
func TestQueueDepthWithReplicasST2(t *testing.T) {
	q := &elsewhereQueue{}
	d, plat, f, _ := setupOpts(t, func(db *sqlstore.DB) Store { return db }, func(o *Options) { o.Queue = q }, "test:1")
	ctx := context.Background()
	release := make(chan struct{})
	f.Push(fakellm.Step{Text: "first", Release: release}, fakellm.Step{Text: "second"}, fakellm.Step{Text: "third"})
	for i := range 3 {
		d.HandleMessage(ctx, channels.Message{Chat: "test:1", User: "test:1", ID: fmt.Sprint("m", i), Text: fmt.Sprint("message ", i)})
	}
	if n := q.added.Load(); n != 3 {
		t.Fatalf("%d messages queued, want 3", n)
	}
	done := make(chan error, 1)
	go func() { done <- d.AnswerChat(ctx, "test:1") }()
	waitFor(t, "the first turn to ask the model", func() (bool, any) { return len(f.Requests()) == 1, len(f.Requests()) })
	if n := d.Queued(); n != 2 {
		t.Errorf("queue depth during the first turn: %d, want 2", n)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := plat.to("test:1"); !slices.Equal(got, []string{"first", "second", "third"}) {
		t.Errorf("answers %q", got)
	}
	if n := d.Queued(); n != 0 {
		t.Errorf("queue depth after the chat was let go: %d", n)
	}
}

// TestOutcomeSaysWhichAppDecidedX5: the edited approval message says which
// app decided over the MCP surface; the owner's and an expiry's read as
// before.
func TestOutcomeSaysWhichAppDecidedX5(t *testing.T) {
	cases := []struct {
		a    store.Approval
		want string
	}{
		{store.Approval{State: store.ApprovalDenied, DecidedBy: "app:auditor"}, "Denied by app auditor"},
		{store.Approval{State: store.ApprovalApproved, DecidedBy: "app:auditor", Always: true}, "Approved by app auditor, always for this tool"},
		{store.Approval{State: store.ApprovalDenied, DecidedBy: "telegram:42"}, "Denied"},
		{store.Approval{State: store.ApprovalApproved, DecidedBy: "console"}, "Approved"},
		{store.Approval{State: store.ApprovalExpired}, "Expired: nobody answered, so it was denied"},
	}
	for _, c := range cases {
		if got := outcome(c.a); got != c.want {
			t.Errorf("outcome(%s by %q) = %q, want %q", c.a.State, c.a.DecidedBy, got, c.want)
		}
	}
}
