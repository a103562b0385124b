//go:build !nopostgres

package replicas

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
	"github.com/jarvisbot/jarvisbot/store/sqlstore/pgtest"
)

// stopped is the answerer's Later when its hold on the chat ended: the
// task is tried again at once.
type stopped struct{}

func (stopped) Error() string          { return "answered later: stopped" }
func (stopped) RetryIn() time.Duration { return 0 }

// chats is the test's inbox: waiting messages by chat, in order, and
// who answered what. It fails the test when two replicas answer one chat
// at once.
type chats struct {
	t        *testing.T
	mu       sync.Mutex
	waiting  map[string][]int64
	received map[int64]time.Time
	inTurn   map[string]string
	answered map[string][]int64
	by       map[int64]string
	all      chan struct{}
	left     int
}

func newChats(t *testing.T) *chats {
	return &chats{t: t, waiting: map[string][]int64{}, received: map[int64]time.Time{}, inTurn: map[string]string{},
		answered: map[string][]int64{}, by: map[int64]string{}, all: make(chan struct{})}
}

func (c *chats) receive(chat string, id int64, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waiting[chat] = append(c.waiting[chat], id)
	c.received[id] = at
	c.left++
}

// answer is a replica's Answer: it takes the chat's messages oldest
// first and lets go of nothing it did not answer.
func (c *chats) answer(replica string, turn func()) func(ctx context.Context, chat string) error {
	return func(ctx context.Context, chat string) error {
		c.mu.Lock()
		if other, busy := c.inTurn[chat]; busy {
			c.t.Errorf("%s answers %s while %s does", replica, chat, other)
		}
		c.inTurn[chat] = replica
		c.mu.Unlock()
		defer func() {
			c.mu.Lock()
			delete(c.inTurn, chat)
			c.mu.Unlock()
		}()
		for {
			if err := ctx.Err(); err != nil {
				return stopped{}
			}
			c.mu.Lock()
			if len(c.waiting[chat]) == 0 {
				c.mu.Unlock()
				return nil
			}
			id := c.waiting[chat][0]
			c.mu.Unlock()
			turn()
			c.mu.Lock()
			c.waiting[chat] = c.waiting[chat][1:]
			c.answered[chat] = append(c.answered[chat], id)
			if _, twice := c.by[id]; twice {
				c.t.Errorf("message %d answered twice", id)
			}
			c.by[id] = replica
			c.left--
			if c.left == 0 {
				close(c.all)
			}
			c.mu.Unlock()
		}
	}
}

func (c *chats) list(context.Context) ([]store.Incoming, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []store.Incoming
	for chat, ids := range c.waiting {
		for _, id := range ids {
			out = append(out, store.Incoming{ID: id, Chat: chat, Received: c.received[id]})
		}
	}
	return out, nil
}

func startQueue(t *testing.T, dbURL, name string, c *chats, turn func(), opt Options) *Queue {
	t.Helper()
	opt.URL, opt.ID = dbURL, name
	opt.Answer, opt.Waiting = c.answer(name, turn), c.list
	q, err := Open(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		q.Stop(ctx)
	})
	return q
}

// ST2: messages of many chats queued on two replicas at random are each
// answered once, in order per chat, and never by two replicas at once.
func TestChatsAnsweredOnceInOrderAcrossReplicasST2(t *testing.T) {
	dbURL := pgtest.Fresh(t, "replicas")
	c := newChats(t)
	// A turn takes a little while, as a model's answer does, so that
	// tasks of one chat meet on both replicas.
	turn := func() { time.Sleep(2 * time.Millisecond) }
	a := startQueue(t, dbURL, "a", c, turn, Options{})
	b := startQueue(t, dbURL, "b", c, turn, Options{})

	ctx := context.Background()
	const nChats, perChat = 40, 5
	id := int64(0)
	var wg sync.WaitGroup
	for i := range nChats {
		chat := fmt.Sprintf("telegram:%d", i)
		ids := make([]int64, perChat)
		for j := range perChat {
			id++
			ids[j] = id
			c.receive(chat, id, time.Now())
		}
		wg.Go(func() {
			for j, id := range ids {
				q := a
				if (i+j)%2 == 1 {
					q = b
				}
				if err := q.Add(ctx, chat, id); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	select {
	case <-c.all:
	case <-time.After(2 * time.Minute):
		t.Fatalf("%d messages still unanswered", c.left)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	replicas := map[string]int{}
	for chat, got := range c.answered {
		for j := 1; j < len(got); j++ {
			if got[j] < got[j-1] {
				t.Errorf("%s answered out of order: %v", chat, got)
				break
			}
		}
	}
	for _, r := range c.by {
		replicas[r]++
	}
	if len(c.by) != nChats*perChat {
		t.Errorf("answered %d messages, want %d", len(c.by), nChats*perChat)
	}
	t.Logf("answered by replica: %v", replicas)
}

// ST2: a replica whose database connection dies stops its turn (the
// chat's lock went with the connection), and the other replica answers
// the chat; a message stored but never queued is found by the sweep.
func TestLostReplicaHandsItsChatOverST2(t *testing.T) {
	dbURL := pgtest.Fresh(t, "replicas")
	c := newChats(t)
	a := startQueue(t, dbURL, "a", c, func() {}, Options{})
	ctx := context.Background()

	// a holds the chat through Hold, as a decided approval's turn does.
	held, release, err := a.Hold(ctx, "telegram:7")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	b := startQueue(t, dbURL, "b", c, func() {}, Options{SweepEvery: 50 * time.Millisecond, SweepAge: time.Millisecond})
	// Stored, never queued: only the sweep can find it, and it must not
	// while a holds the chat.
	c.receive("telegram:7", 1, time.Now())
	if sweepsWhileHeld(t, b, 3) {
		t.Fatal("the sweep queued a message whose chat a replica holds")
	}

	// a's connection dies: its hold ends with sqlstore.ErrLockLost, and the sweep
	// queues the message, which one of the replicas answers.
	terminateLocks(t, dbURL, "a")
	select {
	case <-held.Done():
		if cause := context.Cause(held); cause != sqlstore.ErrLockLost {
			t.Errorf("the hold ended with %v, want sqlstore.ErrLockLost", cause)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the hold outlived its connection")
	}
	select {
	case <-c.all:
	case <-time.After(time.Minute):
		t.Fatal("the message of the lost replica's chat was never answered")
	}
}

// sweepsWhileHeld runs the sweep n times by hand and reports whether it
// queued anything.
func sweepsWhileHeld(t *testing.T, q *Queue, n int) bool {
	t.Helper()
	for range n {
		if err := q.sweep(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := pgx.Connect(context.Background(), q.opt.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var tasks int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM river_job`).Scan(&tasks); err != nil {
		t.Fatal(err)
	}
	return tasks > 0
}

// terminateLocks ends the locks' connection of a replica from outside,
// as a dead host or a network cut does.
func terminateLocks(t *testing.T, dbURL, replica string) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	// The locks' session is the one holding advisory locks in our
	// namespace.
	var n int
	if err := conn.QueryRow(context.Background(), `SELECT count(pg_terminate_backend(pid)) FROM pg_locks WHERE locktype = 'advisory' AND classid = $1::oid`, uint32(nsChat)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatalf("no session of replica %s holds a chat", replica)
	}
}

// SC1, ST2: every replica queues a skill's run at its due time; one task
// is kept per skill and due time, and one replica runs it.
func TestScheduledRunOncePerDueTimeST2(t *testing.T) {
	dbURL := pgtest.Fresh(t, "replicas")
	c := newChats(t)
	var mu sync.Mutex
	ran := map[string][]string{}
	all := make(chan struct{})
	runDue := func(replica string) func(context.Context, string, time.Time) error {
		return func(_ context.Context, skill string, due time.Time) error {
			mu.Lock()
			defer mu.Unlock()
			key := skill + "@" + due.UTC().Format(time.RFC3339)
			ran[key] = append(ran[key], replica)
			if len(ran) == 4 {
				close(all)
			}
			return nil
		}
	}
	a := startQueue(t, dbURL, "a", c, func() {}, Options{RunDue: runDue("a")})
	b := startQueue(t, dbURL, "b", c, func() {}, Options{RunDue: runDue("b")})
	ctx := context.Background()
	first := time.Date(2026, 12, 4, 7, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	for _, skill := range []string{"morning-brief", "inbox-digest"} {
		for _, due := range []time.Time{first, first.Add(24 * time.Hour)} {
			for _, q := range []*Queue{a, b, a, b} {
				wg.Go(func() {
					// The same instant in another zone is the same due time.
					if err := q.AddRun(ctx, skill, due.In(time.FixedZone("CET", 3600))); err != nil {
						t.Error(err)
					}
				})
			}
		}
	}
	wg.Wait()
	select {
	case <-all:
	case <-time.After(time.Minute):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("runs after a minute: %v", ran)
	}
	// A run queued again after it ran is still the same task.
	if err := b.AddRun(ctx, "morning-brief", first); err != nil {
		t.Fatal(err)
	}
	waitDrained(t, dbURL)
	mu.Lock()
	defer mu.Unlock()
	for key, by := range ran {
		if len(by) != 1 {
			t.Errorf("%s ran %d times (%v)", key, len(by), by)
		}
	}
}

// waitDrained waits until no task is left to run.
func waitDrained(t *testing.T, dbURL string) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	deadline := time.Now().Add(time.Minute)
	for {
		var n int
		if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE state NOT IN ('completed', 'cancelled', 'discarded')`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d tasks still queued after a minute", n)
		}
		time.Sleep(20 * time.Millisecond) // polling the database's state, not timing a result
	}
}

// CH3, ST2: a report that could not be delivered is queued for another
// try by every replica that notices; one task keeps it, tried again until
// it is sent, and it is sent once.
func TestReportDeliveryRetriedOnceST2(t *testing.T) {
	dbURL := pgtest.Fresh(t, "replicas")
	c := newChats(t)
	var mu sync.Mutex
	tries, sent := 0, 0
	done := make(chan struct{})
	deliver := func(context.Context, int64) error {
		mu.Lock()
		defer mu.Unlock()
		tries++
		if tries == 1 {
			return fmt.Errorf("the chat API is down")
		}
		sent++
		if sent == 1 {
			close(done)
		}
		return nil
	}
	a := startQueue(t, dbURL, "a", c, func() {}, Options{Deliver: deliver})
	b := startQueue(t, dbURL, "b", c, func() {}, Options{Deliver: deliver})
	ctx := context.Background()
	for _, q := range []*Queue{a, b, a} {
		if err := q.AddDelivery(ctx, 17); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the report was not sent again within a minute")
	}
	waitDrained(t, dbURL)
	mu.Lock()
	defer mu.Unlock()
	if tries != 2 || sent != 1 {
		t.Errorf("tried %d times and sent %d, want 2 and 1", tries, sent)
	}
}

// ST2: an owner's /cancel that reaches a replica not answering the chat
// is passed to the replicas, and the one holding the chat hears it; with
// no replica holding the chat there is nothing to stop and none is told.
func TestCancelReachesTheReplicaAnsweringTheChatST2(t *testing.T) {
	dbURL := pgtest.Fresh(t, "replicas")
	c := newChats(t)
	heard := map[string]chan string{"a": make(chan string, 4), "b": make(chan string, 4)}
	stopTurn := func(name string) func(string) { return func(chat string) { heard[name] <- chat } }
	a := startQueue(t, dbURL, "a", c, func() {}, Options{StopTurn: stopTurn("a")})
	b := startQueue(t, dbURL, "b", c, func() {}, Options{StopTurn: stopTurn("b")})
	ctx := context.Background()

	if sent, err := b.Cancel(ctx, "telegram:1"); err != nil || sent {
		t.Fatalf("Cancel of a chat nobody holds: sent %v, %v", sent, err)
	}
	_, release, err := a.Hold(ctx, "telegram:1")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if sent, err := b.Cancel(ctx, "telegram:1"); err != nil || !sent {
		t.Fatalf("Cancel of a chat replica a holds: sent %v, %v", sent, err)
	}
	select {
	case chat := <-heard["a"]:
		if chat != "telegram:1" {
			t.Errorf("replica a was told to stop %q", chat)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("replica a holding the chat never heard the /cancel")
	}
	select {
	case chat := <-heard["a"]:
		t.Errorf("a /cancel heard before the chat was held: %q", chat)
	default:
	}
}

// ST2: a scheduled run's try that ended without finishing (its replica
// died) is followed by one that first has the run recorded as cut off,
// then hands the due time to RunDue, which runs nothing twice.
func TestRunCutOffIsRecordedST2(t *testing.T) {
	dbURL := pgtest.Fresh(t, "replicas")
	c := newChats(t)
	var mu sync.Mutex
	var tries, abandoned []string
	done := make(chan struct{})
	a := startQueue(t, dbURL, "a", c, func() {}, Options{
		RunDue: func(_ context.Context, skill string, due time.Time) error {
			mu.Lock()
			defer mu.Unlock()
			tries = append(tries, skill)
			if len(tries) == 1 {
				return errors.New("the replica ends mid-run")
			}
			close(done)
			return nil
		},
		Abandoned: func(_ context.Context, skill string, due time.Time) error {
			mu.Lock()
			defer mu.Unlock()
			abandoned = append(abandoned, skill+"@"+due.UTC().Format(time.RFC3339))
			return nil
		},
	})
	due := time.Date(2026, 12, 4, 7, 0, 0, 0, time.UTC)
	if err := a.AddRun(context.Background(), "morning-brief", due); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the run's second try never came")
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"morning-brief@2026-12-04T07:00:00Z"}; !slices.Equal(abandoned, want) {
		t.Errorf("recorded cut off: %v, want %v", abandoned, want)
	}
	if len(tries) != 2 {
		t.Errorf("%d tries, want 2", len(tries))
	}
}

// ST2: while one try of a scheduled run is going, another try of it
// (River rescuing a task whose replica is only slow) runs nothing.
func TestRunNotTriedBesideItselfST2(t *testing.T) {
	dbURL := pgtest.Fresh(t, "replicas")
	c := newChats(t)
	a := startQueue(t, dbURL, "a", c, func() {}, Options{})
	due := time.Date(2026, 12, 4, 7, 0, 0, 0, time.UTC)
	_, release, ok, err := a.locks.Try(context.Background(), runKey("morning-brief", due))
	if err != nil || !ok {
		t.Fatalf("holding the run: %v %v", ok, err)
	}
	defer release()
	ran := false
	a.opt.RunDue = func(context.Context, string, time.Time) error { ran = true; return nil }
	w := &runWorker{q: a}
	task := &river.Job[runArgs]{JobRow: &rivertype.JobRow{Attempt: 2}, Args: runArgs{Skill: "morning-brief", Due: due}}
	if err := w.Work(context.Background(), task); err != nil {
		t.Fatal(err)
	}
	if ran {
		t.Error("a second try ran beside the first")
	}
}
