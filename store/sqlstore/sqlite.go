package sqlstore

// The SQLite dialect (ST1): one file in the data directory, opened with
// the pure-Go modernc.org/sqlite driver so the binary builds without cgo,
// and leases as file locks beside it.

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/filelock"
)

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
//
// cache_size keeps SQLite's own page cache to 64 KiB (about 14 pages)
// instead of its 2 MB default. The kernel caches the database file
// already, so a page SQLite keeps is a second copy, and a costly one: the
// pure-Go SQLite allocates each cached page in an 8 KiB slot, so the
// default cache grows to ~4 MiB of the process's own memory as history
// accumulates, never handed back. Measured: one second after a first turn
// RssAnon fell from 9.2 to 8.8 MiB; a memory search over 10,000 entries
// takes 0.1 to 2 ms longer, next to a model call of seconds.
func dsn(abs string) string {
	// The path is part of a SQLite URI, where '?', '#' and '%' are syntax.
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(abs))
	return "file:" + esc +
		"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_pragma=cache_size(-64)&_txlock=immediate"
}

// tryLeadFile takes the role's file lock if it is free.
func (db *DB) tryLeadFile(ctx context.Context, role string) (jarvisbot.Lease, bool, error) {
	tctx, cancel := context.WithCancel(ctx)
	cancel() // one attempt: filelock.Lock tries once before it looks at ctx
	l, err := db.leadFile(tctx, role, leasePoll)
	if err == nil {
		return l, true, nil
	}
	if ctx.Err() == nil && errors.Is(err, context.Canceled) {
		return nil, false, nil
	}
	return nil, false, err
}

// leadFile waits for the role's file lock, trying every poll.
func (db *DB) leadFile(ctx context.Context, role string, poll time.Duration) (jarvisbot.Lease, error) {
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

// notADatabase reports whether SQLite found something other than a
// database at the path: the common mistake worth its own message.
func notADatabase(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_NOTADB
}
