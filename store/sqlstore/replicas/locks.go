package replicas

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jarvisbot/jarvisbot"
)

// lockKey names an advisory lock: PostgreSQL's two-number form, a
// namespace of ours and the hash of a name. The store's leases and
// locks use namespaces from 0x4a420010 on (store/sqlstore/postgres.go).
type lockKey struct {
	ns   int32
	name string
}

const (
	nsChat    int32 = 0x4a420001
	nsSweep   int32 = 0x4a420002
	nsMigrate int32 = 0x4a420003
	nsRun     int32 = 0x4a420004
)

func chatKey(chat string) lockKey { return lockKey{nsChat, chat} }

// runKey is a scheduled run's lock, held while a replica runs it.
func runKey(skill string, due time.Time) lockKey {
	return lockKey{nsRun, skill + "@" + due.UTC().Format(time.RFC3339Nano)}
}

var (
	sweepKey   = lockKey{nsSweep, "sweep"}
	migrateKey = lockKey{nsMigrate, "river"}
)

// errLost ends a hold whose connection broke: the locks went with it.
var errLost = errors.New("the lock on the chat was lost with its database connection; another replica answers it")

// chatLocks holds this replica's advisory locks, all on one connection
// (a replica answering 30 chats holds 30 locks, not 30 connections). A
// lock is one session's, so a second hold of one key in this process is
// refused here: PostgreSQL would grant it again to the same session.
type chatLocks struct {
	cfg *pgx.ConnConfig
	log *slog.Logger

	mu   sync.Mutex
	conn *pgx.Conn
	held map[lockKey]*hold

	stop chan struct{}
	done chan struct{}
}

type hold struct{ cancel context.CancelCauseFunc }

// lockQueryTimeout bounds one lock query. The queries never take the
// caller's context: a query cancelled half way closes the connection,
// and with it every lock the replica holds.
const lockQueryTimeout = 5 * time.Second

// pingEvery is how often the locks' connection is checked: a replica
// whose connection broke stops its turns within this time, as the
// database has let their chats go.
const pingEvery = 2 * time.Second

func openLocks(ctx context.Context, cfg *pgx.ConnConfig, log *slog.Logger) (*chatLocks, error) {
	l := &chatLocks{cfg: cfg, log: log, held: map[lockKey]*hold{}, stop: make(chan struct{}), done: make(chan struct{})}
	l.mu.Lock()
	err := l.connect(ctx)
	l.mu.Unlock()
	if err != nil {
		return nil, err
	}
	go l.watch()
	return l, nil
}

// connect opens the connection when there is none; mu is held.
func (l *chatLocks) connect(ctx context.Context) error {
	if l.conn != nil {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, lockQueryTimeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(cctx, l.cfg)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "turn queue: connecting to PostgreSQL for the chats' locks: %w", err)
	}
	l.conn = conn
	return nil
}

// try takes the lock if it is free. The returned context ends when the
// hold is lost; release lets the lock go.
func (l *chatLocks) try(ctx context.Context, k lockKey) (context.Context, func(), bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.held[k]; ok {
		return nil, nil, false, nil
	}
	if err := l.connect(ctx); err != nil {
		return nil, nil, false, err
	}
	qctx, cancel := context.WithTimeout(context.Background(), lockQueryTimeout)
	defer cancel()
	var got bool
	if err := l.conn.QueryRow(qctx, `SELECT pg_try_advisory_lock($1, hashtext($2))`, k.ns, k.name).Scan(&got); err != nil {
		l.broken(err)
		return nil, nil, false, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "turn queue: taking a lock: %w", err)
	}
	if !got {
		return nil, nil, false, nil
	}
	hctx, hcancel := context.WithCancelCause(ctx)
	h := &hold{cancel: hcancel}
	l.held[k] = h
	return hctx, func() { l.release(k, h) }, true, nil
}

// wait takes the lock, looking again every so often while another
// replica holds it.
func (l *chatLocks) wait(ctx context.Context, k lockKey, every time.Duration) (context.Context, func(), error) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		held, release, ok, err := l.try(ctx, k)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			return held, release, nil
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-t.C:
		}
	}
}

// heldElsewhere reports whether a lock is held, here or by another
// replica, by taking it and letting it go at once.
func (l *chatLocks) heldElsewhere(ctx context.Context, k lockKey) (bool, error) {
	_, release, ok, err := l.try(ctx, k)
	if err != nil || !ok {
		return true, err
	}
	release()
	return false, nil
}

func (l *chatLocks) release(k lockKey, h *hold) {
	l.mu.Lock()
	defer l.mu.Unlock()
	defer h.cancel(nil)
	if l.held[k] != h {
		return // lost with its connection already
	}
	delete(l.held, k)
	qctx, cancel := context.WithTimeout(context.Background(), lockQueryTimeout)
	defer cancel()
	if _, err := l.conn.Exec(qctx, `SELECT pg_advisory_unlock($1, hashtext($2))`, k.ns, k.name); err != nil {
		l.broken(err) // the connection's end lets every lock go
	}
}

// broken drops a connection that failed: PostgreSQL let its locks go, so
// every hold ends now. mu is held.
func (l *chatLocks) broken(err error) {
	if l.conn == nil {
		return
	}
	if len(l.held) > 0 {
		l.log.Warn("the connection holding the chats' locks broke; the turns in progress stop and another replica takes them", "chats", len(l.held), "err", err)
	}
	cctx, cancel := context.WithTimeout(context.Background(), time.Second)
	_ = l.conn.Close(cctx) // broken already; closing frees what is left
	cancel()
	l.conn = nil
	for k, h := range l.held {
		h.cancel(errLost)
		delete(l.held, k)
	}
}

// watch pings the connection while locks are held.
func (l *chatLocks) watch() {
	defer close(l.done)
	t := time.NewTicker(pingEvery)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		l.mu.Lock()
		if l.conn != nil && len(l.held) > 0 {
			ctx, cancel := context.WithTimeout(context.Background(), pingEvery)
			if err := l.conn.Ping(ctx); err != nil {
				l.broken(err)
			}
			cancel()
		}
		l.mu.Unlock()
	}
}

func (l *chatLocks) close() {
	close(l.stop)
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, h := range l.held {
		h.cancel(context.Canceled)
		delete(l.held, k)
	}
	if l.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = l.conn.Close(ctx) // closing the session lets its locks go, which is the point
		cancel()
		l.conn = nil
	}
}
