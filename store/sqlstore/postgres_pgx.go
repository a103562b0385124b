//go:build !nopostgres

package sqlstore

// Opening a postgres:// URL with pgx (ST2) and the store's leases as
// session advisory locks. A build tagged nopostgres leaves this out, and
// pgx with it (postgres_omitted.go).

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"net/url"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/jarvisbot/jarvisbot"
)

// maxPostgresConns bounds one process's pool: PostgreSQL allows 100
// connections by default, shared by every replica and River's own pools.
const maxPostgresConns = 10

// openPostgres opens the PostgreSQL database at rawURL (ST2). The URL
// never appears in a message with its password: db.path is redacted.
func openPostgres(ctx context.Context, rawURL string, fsys fs.FS) (*DB, error) {
	shown := Redact(rawURL)
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" && u.Query().Get("host") == "" {
		// The parse error quotes the URL, password and all: not passed on.
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "database URL %s is not a URL such as postgres://USER@HOST:5432/DATABASE", shown)
	}
	migs, err := loadMigrations(fsys, postgresDialect)
	if err != nil {
		return nil, err
	}
	pgConfig, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "database URL %s cannot be used: check its form and parameters", shown)
	}
	sqldb, err := sql.Open("pgx", rawURL)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "database URL %s cannot be used: check its form and parameters", shown)
	}
	sqldb.SetMaxOpenConns(maxPostgresConns)
	sqldb.SetMaxIdleConns(maxPostgresConns)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	return finishOpen(ctx, &DB{db: conn{sqldb, postgresDialect}, path: shown, dialect: postgresDialect, now: time.Now, leasePing: leasePingEvery, pg: pgLeases{cfg: pgConfig}}, migs)
}

// leasePingTimeout bounds one check of the leases' connection.
const leasePingTimeout = 5 * time.Second

// pgLeases is a PostgreSQL store's lease holder and what it is made from.
type pgLeases struct {
	cfg   *pgx.ConnConfig // the store's connection settings
	mu    sync.Mutex
	locks *AdvisoryLocks // made at the first lease
}

// leaseHolder returns the holder of the store's leases, made at the first
// lease so that a process taking none (the CLI) opens no connection for
// them. All of this process's leases are held on its one connection.
func (db *DB) leaseHolder(ctx context.Context) (*AdvisoryLocks, error) {
	db.pg.mu.Lock()
	defer db.pg.mu.Unlock()
	if db.pg.locks == nil {
		locks, err := OpenAdvisoryLocks(ctx, db.pg.cfg, LockOptions{
			Label:       "leases",
			Holding:     "the leases",
			Broken:      "the connection holding this process's leases broke; the work they guard stops, and another process may take it up",
			PingEvery:   db.leasePing,
			PingTimeout: leasePingTimeout,
		}, false)
		if err != nil {
			return nil, err
		}
		db.pg.locks = locks
	}
	return db.pg.locks, nil
}

// closeLeases lets go of the leases still held: their holder's session
// ends with the store.
func (db *DB) closeLeases() {
	db.pg.mu.Lock()
	defer db.pg.mu.Unlock()
	if db.pg.locks != nil {
		db.pg.locks.Close()
		db.pg.locks = nil
	}
}

// tryLeadPostgres takes the role's session advisory lock. The hold does
// not end with ctx: only Release, or the loss of the connection, ends it.
func (db *DB) tryLeadPostgres(ctx context.Context, role string) (jarvisbot.Lease, bool, error) {
	locks, err := db.leaseHolder(ctx)
	if err != nil {
		return nil, false, db.leaseError(role, err)
	}
	held, release, ok, err := locks.Try(context.WithoutCancel(ctx), LockKey{nsLease, role})
	if err != nil {
		return nil, false, db.leaseError(role, err)
	}
	if !ok {
		return nil, false, nil
	}
	l := &advisoryLease{release: release, lost: make(chan struct{})}
	context.AfterFunc(held, func() {
		// Released, the hold ends without a cause of its own: not lost.
		if c := context.Cause(held); errors.Is(c, ErrLockLost) || errors.Is(c, errLocksClosed) {
			close(l.lost)
		}
	})
	return l, true, nil
}

// leadPostgres tries every leasePoll until the role is free or ctx ends.
func (db *DB) leadPostgres(ctx context.Context, role string) (jarvisbot.Lease, error) {
	t := time.NewTicker(leasePoll)
	defer t.Stop()
	for {
		l, ok, err := db.tryLeadPostgres(ctx, role)
		if err != nil || ok {
			return l, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

func (db *DB) leaseError(role string, err error) error {
	return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "lease %s on %s: %w", role, db.path, err)
}

// advisoryLease is a store lease held in the process's AdvisoryLocks.
type advisoryLease struct {
	release func()
	lost    chan struct{}
}

func (l *advisoryLease) Lost() <-chan struct{} { return l.lost }

// Release unlocks the role; a second call does nothing. Were the unlock
// to fail, the holder closes its connection, which lets the lock go.
func (l *advisoryLease) Release() { l.release() }
