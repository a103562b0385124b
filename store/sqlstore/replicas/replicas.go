// Package replicas runs what replicas sharing one PostgreSQL store must
// each do once (ST2, CH1, SC1), as durable tasks on a River queue (River
// calls them jobs) any replica may take: the turns, the scheduled runs of
// clock-marked skills and their reports' deliveries. "Task" keeps them
// apart from the jobs an app posts and the entries of a schedule.
//
// Turns: each received message is a task, and a chat is answered by one
// replica at a time, oldest message first, wherever its messages landed.
// River spreads the tasks and keeps them through crashes; it has no
// per-key ordering, so the order comes from a lock per chat: a task whose
// chat another replica holds is snoozed and tried again, and the holder
// answers all of the chat's waiting messages in order before it lets go.
// The locks are PostgreSQL session advisory locks, all held on one
// connection per replica, so a killed replica's chats are free the moment
// its connection drops. A sweep finds messages nobody is answering (a
// replica killed between storing a message and queueing it, or while its
// task ran) and queues them again.
//
// Scheduled runs: every replica keeps the skills' cron specs and, at each
// due time, queues a task unique per skill and due time, so one replica
// runs it (the store's claim of the run stays as a second guard), and a
// run whose replica died is taken up by another.
//
// With SQLite there is no queue: one process answers, the dispatcher's
// in-process queue per chat keeps the order and the scheduler runs its
// own timers, without a second database pool or River's maintenance
// goroutines (the lightest way to run the embedded default). A build
// tagged nopostgres leaves River out with PostgreSQL (omitted.go): its
// queue cannot be opened.
package replicas

import (
	"context"
	"log/slog"
	"time"

	"github.com/jarvisbot/jarvisbot/store"
)

// Later is an error Answer returns when the chat must wait (jarvisbot is
// paused, or this replica is stopping): the task is tried again after
// RetryIn, on whichever replica takes it then. The answerer declares the
// error (desk.Later); the queue knows it by this method alone, so the
// desk needs neither River nor this package.
type Later interface {
	error
	RetryIn() time.Duration
}

// Options configure a queue.
type Options struct {
	// URL is the PostgreSQL store's connection URL.
	URL string
	// Answer answers the chat's waiting messages, oldest first, until
	// none is left; it is called only while this replica holds the chat.
	// Its context ends when the hold is lost or the queue stops hard.
	Answer func(ctx context.Context, chat string) error
	// Waiting lists every chat's waiting messages, for the sweep.
	Waiting func(ctx context.Context) ([]store.Incoming, error)
	// RunDue runs a scheduled skill's run due at the given time; nil
	// when this replica runs no scheduler.
	RunDue func(ctx context.Context, skill string, due time.Time) error
	// Deliver tries again to send a run's report; its error makes the task
	// retry later (River's backoff). Nil with RunDue.
	Deliver func(ctx context.Context, run int64) error
	// Abandoned records as cut off a run of skill due at due that an
	// earlier try began and never finished (its replica died); the due
	// time is not run again. Nil: such runs stay as they were left.
	Abandoned func(ctx context.Context, skill string, due time.Time) error
	// RescueAfter is how long a task may run before River takes it for
	// one whose replica died and tries it again (default 15 minutes;
	// turns are swept up long before, runs and reports wait for it).
	RescueAfter time.Duration
	// StopTurn stops the chat's turn if it runs on this replica: the
	// owner's /cancel reached another one (see Cancel). Every replica
	// hears it; those running no turn of the chat do nothing. Nil: this
	// replica is not told.
	StopTurn func(chat string)
	// Workers bounds the chats this replica answers at once (default 32).
	Workers int
	// Snooze is how long a task waits when its chat is held elsewhere
	// (default 200 ms, with jitter).
	Snooze time.Duration
	// SweepEvery is how often the sweep looks for messages nobody
	// answers; a message is swept once it waited SweepAge with its chat
	// free (defaults 10 s and 20 s).
	SweepEvery, SweepAge time.Duration
	// ID names this replica in River's tables (default host and pid).
	ID     string
	Now    func() time.Time
	Logger *slog.Logger
}
