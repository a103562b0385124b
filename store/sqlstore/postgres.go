package sqlstore

// The PostgreSQL dialect (ST2), for replicas sharing one store: opening
// a postgres:// URL with pgx, the namespaces of the store's advisory
// locks, and leases as session advisory locks. The River queue the
// replicas share lives beside it, in store/sqlstore/replicas.

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"io/fs"
	"net/url"
	"strings"
	"sync"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

// IsPostgres reports whether target names a PostgreSQL database (a
// postgres:// or postgresql:// URL) rather than a SQLite file.
func IsPostgres(target string) bool {
	return strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://")
}

// Redact returns target fit for logs and errors: a URL's password (in the
// user part or a password= parameter) replaced by "xxxxx". A file path is
// returned as it is.
func Redact(target string) string {
	if !IsPostgres(target) {
		return target
	}
	u, err := url.Parse(target)
	if err != nil {
		// Unparsable: show only the scheme, the rest may hold a password.
		scheme, _, _ := strings.Cut(target, "://")
		return scheme + "://(unreadable URL)"
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// Namespaces of the store's PostgreSQL advisory locks (the two-number
// form: namespace, hashtext(name)), apart from store/sqlstore/replicas' ones.
const (
	nsLease   int32 = 0x4a420010
	nsMigrate int32 = 0x4a420011
	nsRow     int32 = 0x4a420012
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
	sqldb, err := sql.Open("pgx", rawURL)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "database URL %s cannot be used: check its form and parameters", shown)
	}
	sqldb.SetMaxOpenConns(maxPostgresConns)
	sqldb.SetMaxIdleConns(maxPostgresConns)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	return finishOpen(ctx, &DB{db: conn{sqldb, postgresDialect}, path: shown, dialect: postgresDialect, now: time.Now, leasePing: leasePingEvery}, migs)
}

// leasePingEvery is how often a PostgreSQL lease checks the connection
// that holds it: a holder cut off from the database stops its work within
// this time (plus the ping's own timeout), while the database has already
// let the role go.
const leasePingEvery = 3 * time.Second

// leaseQueryTimeout bounds one lease query or ping: the lease's own
// queries never take the caller's context, whose end would break the
// connection and with it the lock.
const leaseQueryTimeout = 5 * time.Second

// tryLeadPostgres takes the role's session advisory lock on a connection
// of its own, held for as long as the lease: PostgreSQL lets the lock go
// when that session ends, a killed replica's included.
func (db *DB) tryLeadPostgres(ctx context.Context, role string) (store.Lease, bool, error) {
	c, err := db.db.Conn(ctx)
	if err != nil {
		return nil, false, db.leaseError(role, err)
	}
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), leaseQueryTimeout)
	defer cancel()
	var got bool
	if err := c.QueryRowContext(qctx, `SELECT pg_try_advisory_lock($1, hashtext($2))`, nsLease, role).Scan(&got); err != nil {
		discard(c)
		return nil, false, db.leaseError(role, err)
	}
	if !got {
		_ = c.Close() // back to the pool: it holds no lock
		return nil, false, nil
	}
	l := &postgresLease{db: db, role: role, conn: c, lost: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	go l.watch(db.leasePing)
	return l, true, nil
}

// leadPostgres tries every leasePoll until the role is free or ctx ends.
func (db *DB) leadPostgres(ctx context.Context, role string) (store.Lease, error) {
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

// discard closes a connection for good rather than pool it, so a lock it
// may hold ends with its session.
func discard(c *sql.Conn) {
	_ = c.Raw(func(any) error { return driver.ErrBadConn })
	_ = c.Close()
}

// postgresLease is a held advisory lock and the connection that holds it.
type postgresLease struct {
	db   *DB
	role string
	conn *sql.Conn

	lostOnce sync.Once
	lost     chan struct{}
	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
}

func (l *postgresLease) Lost() <-chan struct{} { return l.lost }

// watch pings the holding connection every interval; when a ping fails
// the lock can no longer be vouched for, and Lost is closed.
func (l *postgresLease) watch(every time.Duration) {
	defer close(l.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), leaseQueryTimeout)
		err := l.conn.PingContext(ctx)
		cancel()
		if err != nil {
			l.lostOnce.Do(func() { close(l.lost) })
			return
		}
	}
}

// Release unlocks the role and closes the connection; a second call does
// nothing. The connection is not pooled again: were the unlock to fail,
// closing the session still lets the lock go.
func (l *postgresLease) Release() {
	l.stopOnce.Do(func() {
		close(l.stop)
		<-l.done
		ctx, cancel := context.WithTimeout(context.Background(), leaseQueryTimeout)
		defer cancel()
		_, _ = l.conn.ExecContext(ctx, `SELECT pg_advisory_unlock($1, hashtext($2))`, nsLease, l.role)
		discard(l.conn)
	})
}
