package sqlstore

// The PostgreSQL dialect (ST2), for replicas sharing one store: what the
// shared code needs of it (which targets are PostgreSQL, a URL fit for
// messages, the namespaces of the store's advisory locks). Opening a
// postgres:// URL with pgx and the leases as session advisory locks are
// in postgres_pgx.go and postgres_locks.go, left out of a build tagged
// nopostgres (postgres_omitted.go); the River queue the replicas share
// lives beside it, in store/sqlstore/replicas.

import (
	"database/sql"
	"database/sql/driver"
	"net/url"
	"strings"
	"time"
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

// leasePingEvery is how often a PostgreSQL lease checks the connection
// that holds it: a holder cut off from the database stops its work within
// this time (plus the ping's own timeout), while the database has already
// let the role go.
const leasePingEvery = 3 * time.Second

// discard closes a connection for good rather than pool it, so a lock it
// may hold ends with its session.
func discard(c *sql.Conn) {
	_ = c.Raw(func(any) error { return driver.ErrBadConn })
	_ = c.Close()
}
