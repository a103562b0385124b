// Package sqlite implements the store interfaces in SQL (ST1, ST2): on one
// SQLite file in the data directory by default, with the pure-Go
// modernc.org/sqlite driver so the binary builds without cgo, or on a
// PostgreSQL database (pgx) when several replicas share the store. The
// same code serves both; dialect.go says how the SQL texts are kept one.
//
// Open brings the database to the schema this binary knows by applying the
// numbered migrations embedded from migrations/sqlite or
// migrations/postgres (twins with the same numbers), each in its own
// transaction and recorded in schema_migrations; a database written by a
// newer jarvisbot is refused rather than guessed at.
package sqlstore

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

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
}

// migration is one numbered schema step.
type migration struct {
	version int
	name    string
	sql     string
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

func openSQLite(ctx context.Context, dbPath string, fsys fs.FS) (*DB, error) {
	if dbPath == "" {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "no database path given")
	}
	migs, err := loadMigrations(fsys, sqliteDialect)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dbPath)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "cannot resolve database path %s: %w", dbPath, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot create the directory for database %s: %w", abs, err)
	}
	if fi, err := os.Stat(abs); err == nil && !fi.Mode().IsRegular() {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "database path %s is not a regular file: remove it or choose another data directory", abs)
	}
	if err := private(abs); err != nil {
		return nil, err
	}

	sqldb, err := sql.Open("sqlite", dsn(abs))
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "cannot open database %s: %w", abs, err)
	}
	// One connection: SQLite has one writer at a time anyway, and queueing
	// in database/sql is fair, where many connections spinning on the busy
	// handler starve one another under load (200 chats at once gave
	// SQLITE_BUSY after the 5 s timeout). The busy timeout still covers
	// other processes (the CLI beside the service).
	sqldb.SetMaxOpenConns(1)
	return finishOpen(ctx, &DB{db: conn{sqldb, sqliteDialect}, path: abs, dialect: sqliteDialect, now: time.Now, leasePing: leasePingEvery}, migs)
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

// private makes the database the owner's alone (X3) before SQLite opens
// it: SQLite would create a missing file 0644 less the umask, and gives
// its -wal, -shm and -journal files the database's own mode. A file made
// with looser modes (by an older jarvisbot, a copy, a restore) is
// tightened, keeping the owner's bits.
func private(abs string) error {
	f, err := os.OpenFile(abs, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot create database %s: %w", abs, err)
	}
	f.Close()
	for _, p := range []string{abs, abs + "-wal", abs + "-shm", abs + "-journal"} {
		fi, err := os.Stat(p)
		if err != nil {
			continue // a side file comes and goes with the connections
		}
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			if err := os.Chmod(p, perm&0o700); err != nil {
				return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "database file %s can be read by others (mode %#o) and cannot be made private: %w; run chmod 600 %s", p, perm, err, p)
			}
		}
	}
	return nil
}

// dsn builds the connection string. The pragmas apply to every pooled
// connection: WAL lets readers run beside the writer, busy_timeout makes
// writers queue instead of failing, and _txlock=immediate takes the write
// lock at BEGIN so two transactions never deadlock upgrading a read lock.
func dsn(abs string) string {
	// The path is part of a SQLite URI, where '?', '#' and '%' are syntax.
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(abs))
	return "file:" + esc +
		"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate"
}

// openError explains a failure to reach the database, singling out the
// common case of a path that holds something other than a SQLite database.
func (db *DB) openError(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_NOTADB {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s is not a SQLite database (another kind of file, or damaged): move it aside or choose another data directory", db.path)
	}
	if db.dialect == postgresDialect {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot reach PostgreSQL database %s: %w; check that it runs, that the URL (store: or JARVIS_DATABASE_URL) is right and that the database exists", db.path, err)
	}
	return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot open database %s: %w", db.path, err)
}

// loadMigrations reads the dialect's numbered steps from fsys.
func loadMigrations(fsys fs.FS, d dialect) ([]migration, error) {
	names, err := fs.Glob(fsys, "migrations/"+d.String()+"/*.sql")
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "listing embedded migrations: %w", err)
	}
	var migs []migration
	seen := map[int]string{}
	for _, name := range names {
		base := path.Base(name)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "migration file %s is not named NNNN_description.sql", base)
		}
		if prev, dup := seen[v]; dup {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "migrations %s and %s share version %d", prev, base, v)
		}
		seen[v] = base
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading migration %s: %w", base, err)
		}
		migs = append(migs, migration{version: v, name: base, sql: string(body)})
	}
	sort.Slice(migs, func(i, j int) bool { return migs[i].version < migs[j].version })
	return migs, nil
}

// migrate applies every migration newer than the database's version, on
// one connection. Each step runs in its own transaction and re-reads the
// version inside it; SQLite's immediate transactions and, on PostgreSQL,
// an advisory lock held for the whole run make processes opening one new
// database together (replicas starting at once) apply each step once.
func (db *DB) migrate(ctx context.Context, migs []migration) error {
	c, err := db.db.Conn(ctx)
	if err != nil {
		return db.openError(err)
	}
	locked := false
	defer func() {
		if locked {
			// Unlocked on a fresh context, as the caller's may have
			// ended; the lock must not outlive the run on a pooled
			// connection, so one that cannot unlock is closed for good.
			if _, err := c.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1, hashtext('migrate'))`, nsMigrate); err != nil {
				discard(c)
				return
			}
		}
		_ = c.Close() // back to the pool: every step committed or rolled back
	}()
	if db.dialect == postgresDialect {
		if _, err := c.ExecContext(ctx, `SELECT pg_advisory_lock($1, hashtext('migrate'))`, nsMigrate); err != nil {
			return db.openError(err)
		}
		locked = true
	}
	if _, err := c.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		applied_at TEXT NOT NULL
	)`); err != nil {
		return db.openError(err)
	}
	latest := 0
	if len(migs) > 0 {
		latest = migs[len(migs)-1].version
	}
	current, err := db.schemaVersion(ctx, c)
	if err != nil {
		return err
	}
	if current > latest {
		return jarvisbot.Errorf(jarvisbot.ECONFLICT,
			"database %s has schema version %d but this jarvisbot knows only up to %d: it was written by a newer jarvisbot, so upgrade jarvisbot (or point it at another data directory)",
			db.path, current, latest)
	}
	for _, m := range migs {
		if m.version <= current {
			continue
		}
		if err := db.apply(ctx, c, m); err != nil {
			return err
		}
	}
	return nil
}

func (db *DB) apply(ctx context.Context, c *sql.Conn, m migration) error {
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot start migration %s on %s: %w", m.name, db.path, err)
	}
	defer tx.Rollback() // no-op after Commit

	var done int
	if err := tx.QueryRowContext(ctx, db.dialect.rebind(`SELECT count(*) FROM schema_migrations WHERE version = ?`), m.version).Scan(&done); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "checking migration %s on %s: %w", m.name, db.path, err)
	}
	if done > 0 {
		return nil // another process applied it first
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "migration %s failed on %s: %w", m.name, db.path, err)
	}
	if _, err := tx.ExecContext(ctx, db.dialect.rebind(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`),
		m.version, formatTime(db.now())); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "recording migration %s on %s: %w", m.name, db.path, err)
	}
	if err := tx.Commit(); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "committing migration %s on %s: %w", m.name, db.path, err)
	}
	return nil
}

// SchemaVersion returns the highest migration applied to the database, 0
// for one that has none.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	return db.schemaVersion(ctx, db.db)
}

func (db *DB) schemaVersion(ctx context.Context, q querier) (int, error) {
	var v int
	if err := q.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the schema version of %s: %w", db.path, err)
	}
	return v, nil
}

// Path names the database: the SQLite file's absolute path, or the
// PostgreSQL URL without its password.
func (db *DB) Path() string { return db.path }

// Close closes the database. Pending WAL content is checkpointed by SQLite
// when the last connection closes; PostgreSQL lets go of the leases held
// on the closed connections.
func (db *DB) Close() error {
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
