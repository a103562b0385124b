package sqlstore

import (
	"context"
	"database/sql"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/jarvisbot/jarvisbot"
)

// migration is one numbered schema step. Its SQL is read from fsys only
// when the step is applied: a store already at the latest version, every
// start but the first after an upgrade, copies none of the files.
type migration struct {
	version int
	name    string
	fsys    fs.FS
	path    string
}

// sql reads the step's statements.
func (m migration) sql() (string, error) {
	body, err := fs.ReadFile(m.fsys, m.path)
	if err != nil {
		return "", jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading migration %s: %w", m.name, err)
	}
	return string(body), nil
}

// loadMigrations lists the dialect's numbered steps in fsys.
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
		migs = append(migs, migration{version: v, name: base, fsys: fsys, path: name})
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
	stmts, err := m.sql()
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, stmts); err != nil {
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
