//go:build !nopostgres

package sqlstore

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jarvisbot/jarvisbot"
)

// LockKey names a PostgreSQL advisory lock in its two-number form: a
// namespace of ours and the hash of a name. The namespaces in use are
// listed beside the store's own (postgres.go), so that none is taken twice.
type LockKey struct {
	NS   int32
	Name string
}

// ErrLockLost ends a hold whose connection broke: the locks went with it,
// and another process may hold them now.
var ErrLockLost = errors.New("the lock was lost with its database connection; another process may hold it now")

// errLocksClosed ends the holds still there when their holder closes.
var errLocksClosed = errors.New("the advisory locks' holder is closed")

// AdvisoryLocks holds one process's session advisory locks, all on one
// connection of their own (a replica answering 30 chats holds 30 locks,
// not 30 connections), so every lock a killed process held is free the
// moment its connection drops. It is the one holder of session locks on
// PostgreSQL: the store's leases and the task queue's locks
// (store/sqlstore/replicas) each keep one. A lock is one session's, so a
// second hold of one key in this process is refused here: PostgreSQL
// would grant it again to the same session.
type AdvisoryLocks struct {
	cfg *pgx.ConnConfig
	opt LockOptions

	mu   sync.Mutex
	conn *pgx.Conn
	held map[LockKey]*hold

	stop chan struct{}
	done chan struct{}
}

// LockOptions say what a holder's locks are for, in its messages, and how
// often it checks their connection.
type LockOptions struct {
	// Label starts the holder's errors ("turn queue").
	Label string
	// Holding names the locks in messages ("the chats' locks").
	Holding string
	// Broken is logged, with the count of locks held, when their
	// connection breaks: what stops, and who takes over.
	Broken string
	// PingEvery is how often the connection is checked while locks are
	// held, and PingTimeout how long one check may take: a holder cut off
	// from the database stops its work within their sum, as the database
	// has let its locks go.
	PingEvery, PingTimeout time.Duration
	Logger                 *slog.Logger
}

type hold struct{ cancel context.CancelCauseFunc }

// lockQueryTimeout bounds one lock query. The queries never take the
// caller's context: a query cancelled half way closes the connection,
// and with it every lock the process holds.
const lockQueryTimeout = 5 * time.Second

// OpenAdvisoryLocks makes a holder for the database cfg names. With
// connect set it connects at once, so a database that cannot be reached
// is said now; else at the first lock. Close stops it.
func OpenAdvisoryLocks(ctx context.Context, cfg *pgx.ConnConfig, opt LockOptions, connect bool) (*AdvisoryLocks, error) {
	if opt.PingEvery <= 0 || opt.PingTimeout <= 0 {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "%s: the locks' connection checks need an interval and a timeout", opt.Label)
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	l := &AdvisoryLocks{cfg: cfg, opt: opt, held: map[LockKey]*hold{}, stop: make(chan struct{}), done: make(chan struct{})}
	if connect {
		l.mu.Lock()
		err := l.connect(ctx)
		l.mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
	go l.watch()
	return l, nil
}

// connect opens the connection when there is none; mu is held.
func (l *AdvisoryLocks) connect(ctx context.Context) error {
	if l.conn != nil {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, lockQueryTimeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(cctx, l.cfg)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s: connecting to PostgreSQL for %s: %w", l.opt.Label, l.opt.Holding, err)
	}
	l.conn = conn
	return nil
}

// Try takes the lock if it is free. The returned context ends when the
// hold is lost (its cause ErrLockLost) or released; release lets the
// lock go, and a second call does nothing.
func (l *AdvisoryLocks) Try(ctx context.Context, k LockKey) (held context.Context, release func(), ok bool, err error) {
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
	if err := l.conn.QueryRow(qctx, `SELECT pg_try_advisory_lock($1, hashtext($2))`, k.NS, k.Name).Scan(&got); err != nil {
		l.broken(err)
		return nil, nil, false, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s: taking a lock: %w", l.opt.Label, err)
	}
	if !got {
		return nil, nil, false, nil
	}
	hctx, hcancel := context.WithCancelCause(ctx)
	h := &hold{cancel: hcancel}
	l.held[k] = h
	return hctx, sync.OnceFunc(func() { l.release(k, h) }), true, nil
}

// Wait takes the lock, looking again every so often while another
// process holds it.
func (l *AdvisoryLocks) Wait(ctx context.Context, k LockKey, every time.Duration) (context.Context, func(), error) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		held, release, ok, err := l.Try(ctx, k)
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

// HeldElsewhere reports whether a lock is held, here or by another
// process, by taking it and letting it go at once.
func (l *AdvisoryLocks) HeldElsewhere(ctx context.Context, k LockKey) (bool, error) {
	_, release, ok, err := l.Try(ctx, k)
	if err != nil || !ok {
		return true, err
	}
	release()
	return false, nil
}

func (l *AdvisoryLocks) release(k LockKey, h *hold) {
	l.mu.Lock()
	defer l.mu.Unlock()
	defer h.cancel(nil)
	if l.held[k] != h {
		return // lost with its connection already
	}
	delete(l.held, k)
	qctx, cancel := context.WithTimeout(context.Background(), lockQueryTimeout)
	defer cancel()
	if _, err := l.conn.Exec(qctx, `SELECT pg_advisory_unlock($1, hashtext($2))`, k.NS, k.Name); err != nil {
		l.broken(err) // the connection's end lets every lock go
	}
}

// broken drops a connection that failed: PostgreSQL let its locks go, so
// every hold ends now. mu is held.
func (l *AdvisoryLocks) broken(err error) {
	if l.conn == nil {
		return
	}
	if len(l.held) > 0 {
		l.opt.Logger.Warn(l.opt.Broken, "locks", len(l.held), "err", err)
	}
	cctx, cancel := context.WithTimeout(context.Background(), time.Second)
	_ = l.conn.Close(cctx) // broken already; closing frees what is left
	cancel()
	l.conn = nil
	for k, h := range l.held {
		h.cancel(ErrLockLost)
		delete(l.held, k)
	}
}

// watch pings the connection while locks are held.
func (l *AdvisoryLocks) watch() {
	defer close(l.done)
	t := time.NewTicker(l.opt.PingEvery)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		l.mu.Lock()
		if l.conn != nil && len(l.held) > 0 {
			ctx, cancel := context.WithTimeout(context.Background(), l.opt.PingTimeout)
			if err := l.conn.Ping(ctx); err != nil {
				l.broken(err)
			}
			cancel()
		}
		l.mu.Unlock()
	}
}

// Close ends every hold and closes the connection, which lets its locks go.
func (l *AdvisoryLocks) Close() {
	close(l.stop)
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, h := range l.held {
		h.cancel(errLocksClosed)
		delete(l.held, k)
	}
	if l.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = l.conn.Close(ctx) // closing the session lets its locks go, which is the point
		cancel()
		l.conn = nil
	}
}
