//go:build !nopostgres

package replicas

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// Queue is one replica's side of the task queue the replicas share.
type Queue struct {
	opt    Options
	log    *slog.Logger
	pool   *pgxpool.Pool
	client *river.Client[pgx.Tx]
	locks  *sqlstore.AdvisoryLocks
	stop   context.CancelFunc
	swept  chan struct{}

	connCfg  *pgx.ConnConfig
	listened chan struct{} // closed when the listener for /cancel ends

	stopOnce sync.Once
}

// turnArgs is one received message to answer. Sweep is set on a task the
// sweep queued again, so it is not taken for the stuck original.
type turnArgs struct {
	Chat  string `json:"chat"`
	Inbox int64  `json:"inbox"`
	Sweep int64  `json:"sweep,omitempty"`
}

func (turnArgs) Kind() string { return "jarvisbot_turn" }

// InsertOpts make a message's task unique: a message is queued once
// however many times it is added.
func (turnArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: turnsQueue, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// turnsQueue holds the turns.
const turnsQueue = "turns"

// Open connects to the store's database, brings River's tables up to
// date (one replica at a time) and builds the queue; Start runs it.
func Open(ctx context.Context, opt Options) (*Queue, error) {
	if opt.Answer == nil || opt.Waiting == nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "turn queue: Answer and Waiting must be set")
	}
	opt.Workers = cmpOr(opt.Workers, 32)
	opt.Snooze = cmpOr(opt.Snooze, 200*time.Millisecond)
	opt.SweepEvery = cmpOr(opt.SweepEvery, 10*time.Second)
	opt.SweepAge = cmpOr(opt.SweepAge, 20*time.Second)
	opt.RescueAfter = cmpOr(opt.RescueAfter, 15*time.Minute)
	if opt.Now == nil {
		opt.Now = time.Now
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg, err := pgxpool.ParseConfig(opt.URL)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "turn queue: the database URL does not parse: %w", err)
	}
	// River fetches, completes and listens on a few connections; the
	// turns themselves use the store's pool.
	cfg.MaxConns = 8
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "turn queue: connecting to PostgreSQL: %w", err)
	}
	q := &Queue{opt: opt, log: log, pool: pool, swept: make(chan struct{}), connCfg: cfg.ConnConfig, listened: make(chan struct{})}
	q.locks, err = sqlstore.OpenAdvisoryLocks(ctx, cfg.ConnConfig, sqlstore.LockOptions{
		Label:       "turn queue",
		Holding:     "the chats' locks",
		Broken:      "the connection holding the chats' locks broke; the turns in progress stop and another replica takes them",
		PingEvery:   pingEvery,
		PingTimeout: pingEvery,
		Logger:      log,
	}, true)
	if err != nil {
		pool.Close()
		return nil, err
	}
	if err := q.migrate(ctx); err != nil {
		q.close()
		return nil, err
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &turnWorker{q: q})
	river.AddWorker(workers, &runWorker{q: q})
	river.AddWorker(workers, &deliveryWorker{q: q})
	q.client, err = river.NewClient(riverpgxv5.New(pool), &river.Config{
		ID: opt.ID,
		Queues: map[string]river.QueueConfig{
			turnsQueue: {MaxWorkers: opt.Workers},
			runsQueue:  {MaxWorkers: 4},
		},
		Workers: workers,
		// A turn runs as long as its model and tools take; the chat's
		// lock, not a timeout, keeps a second replica off it.
		JobTimeout: -1,
		// A task whose replica died is run again after this; the sweep
		// usually got to its message long before.
		RescueStuckJobsAfter: opt.RescueAfter,
		MaxAttempts:          10,
		RetryPolicy:          retryPolicy{},
		FetchCooldown:        20 * time.Millisecond,
		FetchPollInterval:    time.Second,
		Logger:               riverLogger(log),
	})
	if err != nil {
		q.close()
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "turn queue: %w", err)
	}
	return q, nil
}

// migrate creates or updates River's tables. rivermigrate takes no lock
// of its own, so replicas starting together take turns on an advisory
// lock.
func (q *Queue) migrate(ctx context.Context) error {
	_, unlock, err := q.locks.Wait(ctx, migrateKey, 200*time.Millisecond)
	if err != nil {
		return err
	}
	defer unlock()
	m, err := rivermigrate.New(riverpgxv5.New(q.pool), &rivermigrate.Config{Logger: riverLogger(q.log)})
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "turn queue: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "turn queue: creating River's tables: %w", err)
	}
	return nil
}

// Start runs the queue's workers and its sweep until Stop.
func (q *Queue) Start(ctx context.Context) error {
	ctx, q.stop = context.WithCancel(context.WithoutCancel(ctx))
	if err := q.client.Start(ctx); err != nil {
		q.stop()
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "turn queue: starting: %w", err)
	}
	go q.sweepLoop(ctx)
	if q.opt.StopTurn == nil {
		close(q.listened)
		return nil
	}
	// Listening starts before Start returns, so a /cancel sent once the
	// replica is up is heard.
	conn, err := q.listenConn(ctx)
	if err != nil {
		q.stop()
		<-q.swept
		close(q.listened)
		_ = q.client.Stop(context.WithoutCancel(ctx)) // nothing ran yet
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "turn queue: listening for /cancel from other replicas: %w", err)
	}
	go q.listen(ctx, conn)
	return nil
}

// Add queues a received message. It is safe to add one twice.
func (q *Queue) Add(ctx context.Context, chat string, inbox int64) error {
	if _, err := q.client.Insert(ctx, turnArgs{Chat: chat, Inbox: inbox}, nil); err != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "queueing a message of %s: %w", chat, err)
	}
	return nil
}

// Stop stops taking tasks and waits for the running ones until ctx ends;
// then it stops them (their messages stay waiting for another replica
// or the next start) and closes the connections.
func (q *Queue) Stop(ctx context.Context) {
	q.stopOnce.Do(func() { q.stopTasks(ctx) })
}

func (q *Queue) stopTasks(ctx context.Context) {
	if q.stop != nil {
		if err := q.client.Stop(ctx); err != nil {
			q.log.Warn("answers still running at the deadline are stopped; another replica or the next start answers them")
			hard, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_ = q.client.StopAndCancel(hard) // what it could not stop ends with the process
			cancel()
		}
		q.stop()
		<-q.swept
		<-q.listened
	}
	q.close()
}

func (q *Queue) close() {
	q.locks.Close()
	q.pool.Close()
}

// runArgs is a scheduled skill's run at one due time.
type runArgs struct {
	Skill string    `json:"skill"`
	Due   time.Time `json:"due"`
}

func (runArgs) Kind() string { return "jarvisbot_scheduled_run" }

// InsertOpts make a run unique per skill and due time: every replica
// queues it, one task is kept.
func (runArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: runsQueue, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// runsQueue keeps scheduled runs apart from the turns: a burst of
// messages does not hold back the morning brief, nor it them.
const runsQueue = "scheduled_runs"

// AddRun queues a scheduled skill's run due at due; of the replicas
// adding it, one task is kept.
func (q *Queue) AddRun(ctx context.Context, skill string, due time.Time) error {
	if _, err := q.client.Insert(ctx, runArgs{Skill: skill, Due: due.UTC()}, nil); err != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "queueing the scheduled run of %s: %w", skill, err)
	}
	return nil
}

type runWorker struct {
	river.WorkerDefaults[runArgs]
	q *Queue
}

func (w *runWorker) Work(ctx context.Context, task *river.Job[runArgs]) error {
	q := w.q
	if q.opt.RunDue == nil {
		return river.JobSnooze(time.Minute) // a replica with a scheduler takes it
	}
	// The run's lock tells a try of the task that another is still going
	// (a try rescued from a replica that is slow, not dead): it leaves
	// the run to that one.
	ctx, release, ok, err := q.locks.Try(ctx, runKey(task.Args.Skill, task.Args.Due))
	if err != nil {
		return err
	}
	if !ok {
		return nil
	}
	defer release()
	if task.Attempt > 1 && q.opt.Abandoned != nil {
		// An earlier try ended without finishing, its replica died
		// with it: its run is recorded as cut off, not left running.
		if err := q.opt.Abandoned(ctx, task.Args.Skill, task.Args.Due); err != nil {
			q.log.Warn("recording a scheduled run cut off by its replica's end", "skill", task.Args.Skill, "due", task.Args.Due, "err", err)
		}
	}
	return q.opt.RunDue(ctx, task.Args.Skill, task.Args.Due)
}

// deliveryArgs is another try at sending a run's report (CH3).
type deliveryArgs struct {
	Run int64 `json:"run"`
}

func (deliveryArgs) Kind() string { return "jarvisbot_report_delivery" }

// InsertOpts keep one task per run while it is being retried; once that
// task gave up (discarded), the next retry round queues a new one.
func (deliveryArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: runsQueue, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// AddDelivery queues another try at a run's report.
func (q *Queue) AddDelivery(ctx context.Context, run int64) error {
	if _, err := q.client.Insert(ctx, deliveryArgs{Run: run}, nil); err != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "queueing the delivery of run %d: %w", run, err)
	}
	return nil
}

type deliveryWorker struct {
	river.WorkerDefaults[deliveryArgs]
	q *Queue
}

func (w *deliveryWorker) Work(ctx context.Context, task *river.Job[deliveryArgs]) error {
	if w.q.opt.Deliver == nil {
		return river.JobSnooze(time.Minute) // a replica with a scheduler takes it
	}
	return w.q.opt.Deliver(ctx, task.Args.Run)
}

// turnWorker answers a message's chat while it holds the chat.
type turnWorker struct {
	river.WorkerDefaults[turnArgs]
	q *Queue
}

func (w *turnWorker) Work(ctx context.Context, task *river.Job[turnArgs]) error {
	q := w.q
	ctx, release, ok, err := q.locks.Try(ctx, chatKey(task.Args.Chat))
	if err != nil {
		return err
	}
	if !ok {
		// Another replica answers the chat; it answers this message too
		// if it is still there when that one is done.
		return river.JobSnooze(jitter(q.opt.Snooze))
	}
	defer release()
	err = q.opt.Answer(ctx, task.Args.Chat)
	var later Later
	if errors.As(err, &later) {
		return river.JobSnooze(later.RetryIn())
	}
	return err
}

// retryPolicy waits attempt² seconds before the next try, at most five
// minutes: a report whose chat API is down is tried again about as often
// as on one process (every 30 s at first), not hours later as River's
// default quartic backoff would by the eighth try.
type retryPolicy struct{}

func (retryPolicy) NextRetry(task *rivertype.JobRow) time.Time {
	n := time.Duration(max(task.Attempt, 1))
	return time.Now().Add(min(n*n*time.Second, 5*time.Minute))
}

// sweepLoop queues again, every SweepEvery, the messages that waited
// SweepAge while their chat was free: one replica sweeps at a time.
func (q *Queue) sweepLoop(ctx context.Context) {
	defer close(q.swept)
	t := time.NewTicker(q.opt.SweepEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := q.sweep(ctx); err != nil && ctx.Err() == nil {
				q.log.Warn("looking for messages nobody answers", "err", err)
			}
		}
	}
}

func (q *Queue) sweep(ctx context.Context) error {
	_, release, ok, err := q.locks.Try(ctx, sweepKey)
	if err != nil || !ok {
		return err
	}
	defer release()
	list, err := q.opt.Waiting(ctx)
	if err != nil {
		return err
	}
	now := q.opt.Now()
	round := now.Unix() / int64(max(q.opt.SweepEvery/time.Second, 1))
	seen := map[string]bool{}
	for _, m := range list {
		if seen[m.Chat] || now.Sub(m.Received) < q.opt.SweepAge {
			continue
		}
		seen[m.Chat] = true // the chat's holder answers all it has
		if held, err := q.locks.HeldElsewhere(ctx, chatKey(m.Chat)); err != nil || held {
			continue // answered now, or looked at next round
		}
		q.log.Info("a message waited with nobody answering it; queued again", "chat", m.Chat, "waited", now.Sub(m.Received).Round(time.Second))
		if _, err := q.client.Insert(ctx, turnArgs{Chat: m.Chat, Inbox: m.ID, Sweep: round}, nil); err != nil {
			return fmt.Errorf("queueing a message of %s again: %w", m.Chat, err)
		}
	}
	return nil
}

func jitter(d time.Duration) time.Duration {
	return d/2 + rand.N(d) // mean d; snoozed tasks do not come back in step
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// riverLogger keeps River's own lines at warnings and above: its info
// lines (each start and stop of its services) would drown the service's.
func riverLogger(log *slog.Logger) *slog.Logger {
	return slog.New(minLevel{log.Handler(), slog.LevelWarn}).With("part", "river")
}

type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(as []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(as), h.min}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{h.Handler.WithGroup(name), h.min}
}

// Hold waits until this replica holds the chat (a decided approval's
// turn goes on under it). The returned context ends if the hold is lost.
func (q *Queue) Hold(ctx context.Context, chat string) (context.Context, func(), error) {
	return q.locks.Wait(ctx, chatKey(chat), q.opt.Snooze)
}

// cancelChannel is the notification channel on which a /cancel reaches
// the replica running the chat's turn.
const cancelChannel = "jarvisbot_cancel"

// Cancel asks the replica answering chat to stop the turn it runs, for
// an owner's /cancel that reached this one (ST2). It reports false when
// no replica holds the chat, so nothing runs to stop; the replica that
// stops the turn says so in the chat.
func (q *Queue) Cancel(ctx context.Context, chat string) (bool, error) {
	held, err := q.locks.HeldElsewhere(ctx, chatKey(chat))
	if err != nil {
		return false, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "finding the replica that answers %s: %w", chat, err)
	}
	if !held {
		return false, nil
	}
	if _, err := q.pool.Exec(ctx, "SELECT pg_notify($1, $2)", cancelChannel, chat); err != nil {
		return false, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "asking the other replicas to stop the turn of %s: %w", chat, err)
	}
	return true, nil
}

// listenConn opens a connection listening for /cancel.
func (q *Queue) listenConn(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, q.connCfg)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+cancelChannel); err != nil {
		_ = conn.Close(context.Background()) // the LISTEN's error says why
		return nil, err
	}
	return conn, nil
}

// listen hands each /cancel heard to StopTurn until ctx ends, listening
// again on a new connection, a second later, when one breaks.
func (q *Queue) listen(ctx context.Context, conn *pgx.Conn) {
	defer close(q.listened)
	for {
		err := q.serveCancels(ctx, conn)
		_ = conn.Close(context.Background()) // done with it either way
		for ctx.Err() == nil {
			q.log.Warn("listening for /cancel from other replicas broke; listening again in a second", "err", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
			if conn, err = q.listenConn(ctx); err == nil {
				break
			}
		}
		if ctx.Err() != nil {
			return
		}
	}
}

func (q *Queue) serveCancels(ctx context.Context, conn *pgx.Conn) error {
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		q.opt.StopTurn(n.Payload)
	}
}

// The queue's advisory locks, in namespaces of their own; the store's
// leases and locks use those from 0x4a420010 on (store/sqlstore/postgres.go).
const (
	nsChat    int32 = 0x4a420001
	nsSweep   int32 = 0x4a420002
	nsMigrate int32 = 0x4a420003
	nsRun     int32 = 0x4a420004
)

func chatKey(chat string) sqlstore.LockKey { return sqlstore.LockKey{NS: nsChat, Name: chat} }

// runKey is a scheduled run's lock, held while a replica runs it.
func runKey(skill string, due time.Time) sqlstore.LockKey {
	return sqlstore.LockKey{NS: nsRun, Name: skill + "@" + due.UTC().Format(time.RFC3339Nano)}
}

var (
	sweepKey   = sqlstore.LockKey{NS: nsSweep, Name: "sweep"}
	migrateKey = sqlstore.LockKey{NS: nsMigrate, Name: "river"}
)

// pingEvery is how often the chats' locks' connection is checked: a
// replica whose connection broke stops its turns within this time (and
// as long again for the check), as the database has let their chats go.
const pingEvery = 2 * time.Second
