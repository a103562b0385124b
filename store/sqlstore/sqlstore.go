// Package sqlstore implements the store interfaces in SQL (ST1, ST2), one
// store in two dialects: on one SQLite file in the data directory by
// default (sqlite.go: the pure-Go modernc.org/sqlite driver, so the binary
// builds without cgo), or on a PostgreSQL database when several replicas
// share the store (postgres_pgx.go and postgres_locks.go: pgx, and leases
// as session advisory locks; a build tagged nopostgres, the release
// build, leaves them out and refuses such a store, postgres_omitted.go).
// The queries, one SQL text each, are the shared core in the other
// files; dialect.go says how one text serves both engines and where the
// code branches.
//
// Open brings the database to the schema this binary knows by applying the
// numbered migrations embedded from migrations/sqlite or
// migrations/postgres (twins with the same numbers), each in its own
// transaction and recorded in schema_migrations (migrate.go); a database
// written by a newer jarvisbot is refused rather than guessed at.
//
// The task queue that replicas on PostgreSQL share (River) is the
// subpackage replicas.
package sqlstore

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"time"

	"github.com/jarvisbot/jarvisbot"
)

//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrationFiles embed.FS

// DB is an open jarvisbot database. It is safe for concurrent use.
type DB struct {
	db conn
	// path names the database in messages: the SQLite file's absolute
	// path, or the PostgreSQL URL without its password.
	path    string
	dialect dialect
	now     func() time.Time
	// leasePing is how often a held PostgreSQL lease checks its
	// connection (tests shorten it).
	leasePing time.Duration
	// pg holds the PostgreSQL leases; unused on SQLite.
	pg pgLeases
}

// Open opens the store at target and migrates it to the latest schema.
// A postgres:// or postgresql:// URL opens that PostgreSQL database;
// anything else is the path of a SQLite file, created if needed with its
// parent directory (mode 0700) and the file itself mode 0600.
func Open(ctx context.Context, target string) (*DB, error) {
	return open(ctx, target, migrationFiles)
}

// open is Open with the migrations taken from fsys, so tests can add steps.
func open(ctx context.Context, target string, fsys fs.FS) (*DB, error) {
	if IsPostgres(target) {
		return openPostgres(ctx, target, fsys)
	}
	return openSQLite(ctx, target, fsys)
}

// finishOpen checks the connection and migrates; on failure it closes db.
func finishOpen(ctx context.Context, db *DB, migs []migration) (*DB, error) {
	if err := db.db.PingContext(ctx); err != nil {
		_ = db.db.Close() // the pool holds nothing yet; the open error says what to do
		return nil, db.openError(err)
	}
	if err := db.migrate(ctx, migs); err != nil {
		_ = db.db.Close() // each migration committed or rolled back; the error says which
		return nil, err
	}
	return db, nil
}

// openError explains a failure to reach the database, singling out the
// common case of a path that holds something other than a SQLite database.
func (db *DB) openError(err error) error {
	if notADatabase(err) {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s is not a SQLite database (another kind of file, or damaged): move it aside or choose another data directory", db.path)
	}
	if db.dialect == postgresDialect {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot reach PostgreSQL database %s: %w; check that it runs, that the URL (store: or JARVIS_DATABASE_URL) is right and that the database exists", db.path, err)
	}
	return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot open database %s: %w", db.path, err)
}

// Path names the database: the SQLite file's absolute path, or the
// PostgreSQL URL without its password.
func (db *DB) Path() string { return db.path }

// Close closes the database. Pending WAL content is checkpointed by SQLite
// when the last connection closes; PostgreSQL lets go of the leases held
// on the closed connections.
func (db *DB) Close() error {
	db.closeLeases()
	if err := db.db.Close(); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "closing database %s: %w", db.path, err)
	}
	return nil
}

// affected returns how many rows a statement changed; doing says what the
// statement was for ("removing cli:gh"). When the driver cannot tell, the
// call fails rather than read "no rows" as "not found" or "exists
// already" while the change may have been made.
func (db *DB) affected(res sql.Result, doing string) (int64, error) {
	n, err := res.RowsAffected()
	if err != nil {
		return 0, jarvisbot.Errorf(jarvisbot.EINTERNAL, "%s in %s: cannot tell whether it was done: %w", doing, db.path, err)
	}
	return n, nil
}

// timeLayout is RFC 3339 in UTC with a fixed nine-digit fraction, so that
// times sort as text (RFC3339Nano drops trailing zeros: "…00Z" would sort
// after "…00.001Z").
const timeLayout = "2006-01-02T15:04:05.000000000Z07:00"

// formatTime is the one text form of times in the file.
func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("bad time %q: %w", s, err)
	}
	return t, nil
}
