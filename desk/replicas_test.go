package desk

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

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
