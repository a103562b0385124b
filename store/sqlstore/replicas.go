package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/filelock"
	"github.com/jarvisbot/jarvisbot/store"
)

// leasePoll is how often Lead tries again for a role another process holds.
const leasePoll = 100 * time.Millisecond

// leasePingEvery is how often a PostgreSQL lease checks the connection
// that holds it: a holder cut off from the database stops its work within
// this time (plus the ping's own timeout), while the database has already
// let the role go.
const leasePingEvery = 3 * time.Second

// SharedValue implements store.Shared: INSERT … ON CONFLICT DO NOTHING
// lets one of several processes win, and every caller then reads the
// winner's value.
func (db *DB) SharedValue(ctx context.Context, name string, make func() (string, error)) (string, error) {
	var v string
	err := db.db.QueryRowContext(ctx, `SELECT value FROM shared_values WHERE name = ?`, name).Scan(&v)
	if err == nil {
		return v, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading shared value %s in %s: %w", name, db.path, err)
	}
	fresh, err := make()
	if err != nil {
		return "", err
	}
	if _, err := db.db.ExecContext(ctx, `INSERT INTO shared_values (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING`,
		name, fresh, formatTime(db.now())); err != nil {
		return "", jarvisbot.Errorf(jarvisbot.EINTERNAL, "storing shared value %s in %s: %w", name, db.path, err)
	}
	if err := db.db.QueryRowContext(ctx, `SELECT value FROM shared_values WHERE name = ?`, name).Scan(&v); err != nil {
		return "", jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading shared value %s in %s: %w", name, db.path, err)
	}
	return v, nil
}

// Lead implements store.Leases. On SQLite a lease is a file lock beside
// the database: the processes sharing one SQLite file share one machine,
// and the kernel drops the lock of a process that dies. On PostgreSQL it
// is a session advisory lock (postgresLease).
func (db *DB) Lead(ctx context.Context, role string) (store.Lease, error) {
	if err := validRole(role); err != nil {
		return nil, err
	}
	if db.dialect == postgresDialect {
		return db.leadPostgres(ctx, role)
	}
	return db.lead(ctx, role, leasePoll)
}

// TryLead implements store.Leases.
func (db *DB) TryLead(ctx context.Context, role string) (store.Lease, bool, error) {
	if err := validRole(role); err != nil {
		return nil, false, err
	}
	if db.dialect == postgresDialect {
		return db.tryLeadPostgres(ctx, role)
	}
	tctx, cancel := context.WithCancel(ctx)
	cancel() // one attempt: filelock.Lock tries once before it looks at ctx
	l, err := db.lead(tctx, role, leasePoll)
	if err == nil {
		return l, true, nil
	}
	if ctx.Err() == nil && errors.Is(err, context.Canceled) {
		return nil, false, nil
	}
	return nil, false, err
}

// validRole refuses a role that could name a path outside the data
// directory (SQLite's lock files are named after it).
func validRole(role string) error {
	if role == "" || strings.ContainsAny(role, `/\`) || strings.Contains(role, "..") {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "lease role %q: use letters, digits, '-', '_' and ':'", role)
	}
	return nil
}

func (db *DB) lead(ctx context.Context, role string, poll time.Duration) (store.Lease, error) {
	path := db.path + ".lead-" + strings.ReplaceAll(role, ":", "_")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "lease %s: %w", role, err)
	}
	release, err := filelock.Lock(ctx, path, poll)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "lease %s: cannot lock %s: %w; check that the data directory is writable", role, path, err)
	}
	return &fileLease{release: release, lost: make(chan struct{})}, nil
}

// fileLease is a held file lock. It is never lost while the process lives.
type fileLease struct {
	once    sync.Once
	release func()
	lost    chan struct{}
}

func (l *fileLease) Lost() <-chan struct{} { return l.lost }

func (l *fileLease) Release() { l.once.Do(l.release) }
