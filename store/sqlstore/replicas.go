package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
)

// leasePoll is how often Lead tries again for a role another process holds.
const leasePoll = 100 * time.Millisecond

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

// Lead implements jarvisbot.Leases. On SQLite a lease is a file lock beside
// the database: the processes sharing one SQLite file share one machine,
// and the kernel drops the lock of a process that dies. On PostgreSQL it
// is a session advisory lock held in the process's AdvisoryLocks.
func (db *DB) Lead(ctx context.Context, role string) (jarvisbot.Lease, error) {
	if err := validRole(role); err != nil {
		return nil, err
	}
	if db.dialect == postgresDialect {
		return db.leadPostgres(ctx, role)
	}
	return db.leadFile(ctx, role, leasePoll)
}

// TryLead implements jarvisbot.Leases.
func (db *DB) TryLead(ctx context.Context, role string) (jarvisbot.Lease, bool, error) {
	if err := validRole(role); err != nil {
		return nil, false, err
	}
	if db.dialect == postgresDialect {
		return db.tryLeadPostgres(ctx, role)
	}
	return db.tryLeadFile(ctx, role)
}

// validRole refuses a role that could name a path outside the data
// directory (SQLite's lock files are named after it).
func validRole(role string) error {
	if role == "" || strings.ContainsAny(role, `/\`) || strings.Contains(role, "..") {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "lease role %q: use letters, digits, '-', '_' and ':'", role)
	}
	return nil
}
