package desk

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

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
	// The reply is in the store before the desk marks it kept: wait for
	// both, or the first retry below could run between the two.
	waitFor(t, "the kept reply", func() (bool, any) {
		u, err := lc.DB.Undelivered(ctx)
		return len(u) == 1 && d.kept.Load(), fmt.Sprint(u, err)
	})
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
