package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/names"
	"github.com/jarvisbot/jarvisbot/store"
)

var _ store.Apps = (*DB)(nil)

const appColumns = `name, scope, key_hash, created_at, last_used_at, revoked_at`

// AddApp records an app with its key's hash: ECONFLICT when a live app has
// that name.
func (db *DB) AddApp(ctx context.Context, a store.App) error {
	if err := names.ValidApp(a.Name); err != nil {
		return err
	}
	switch a.Scope {
	case "read", "work", "full":
	default:
		return jarvisbot.Errorf(jarvisbot.EINVALID, "app %s: unknown scope %q: use read, work or full", a.Name, a.Scope)
	}
	if !isHexSHA256(a.KeyHash) {
		// The key itself must never reach the file: only its hash fits here.
		return jarvisbot.Errorf(jarvisbot.EINVALID, "app %s: the key's hash must be 64 lowercase hex digits (SHA-256); the key itself is never stored", a.Name)
	}
	res, err := db.db.ExecContext(ctx, `INSERT INTO apps (name, scope, key_hash, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (name) WHERE revoked_at = '' DO NOTHING`,
		a.Name, a.Scope, a.KeyHash, formatTime(db.now()))
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "adding app %s to %s: %w", a.Name, db.path, err)
	}
	n, err := db.affected(res, "adding app "+a.Name)
	if err != nil {
		return err
	}
	if n == 0 {
		return jarvisbot.Errorf(jarvisbot.ECONFLICT, "app %s exists already: revoke it first (jarvisbot apps revoke %s) or choose another name", a.Name, a.Name)
	}
	return nil
}

// AppByKeyHash returns the app whose key has that hash, revoked or not, or
// ENOTFOUND.
func (db *DB) AppByKeyHash(ctx context.Context, hash string) (store.App, error) {
	row := db.db.QueryRowContext(ctx, `SELECT `+appColumns+` FROM apps WHERE key_hash = ?`, hash)
	a, err := scanApp(row)
	if errors.Is(err, sql.ErrNoRows) {
		// The hash is not named: it stands for a key.
		return store.App{}, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no app has that key")
	}
	if err != nil {
		return store.App{}, jarvisbot.Errorf(jarvisbot.EINTERNAL, "looking up an app key in %s: %w", db.path, err)
	}
	return a, nil
}

// Apps returns every app sorted by name (then by when it was added),
// revoked ones included.
func (db *DB) Apps(ctx context.Context) ([]store.App, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT `+appColumns+` FROM apps ORDER BY name, created_at, id`)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "listing apps in %s: %w", db.path, err)
	}
	defer rows.Close()
	var out []store.App
	for rows.Next() {
		a, err := scanApp(rows)
		if err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "listing apps in %s: %w", db.path, err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "listing apps in %s: %w", db.path, err)
	}
	return out, nil
}

// RevokeApp revokes the live app of that name, or returns ENOTFOUND.
func (db *DB) RevokeApp(ctx context.Context, name string) error {
	res, err := db.db.ExecContext(ctx, `UPDATE apps SET revoked_at = ? WHERE name = ? AND revoked_at = ''`, formatTime(db.now()), name)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "revoking app %s in %s: %w", name, db.path, err)
	}
	n, err := db.affected(res, "revoking app "+name)
	if err != nil {
		return err
	}
	if n == 0 {
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no app named %s, or it was revoked already (see jarvisbot apps list)", name)
	}
	return nil
}

// TouchApp records when the live app of that name was last used, or
// returns ENOTFOUND.
func (db *DB) TouchApp(ctx context.Context, name string, at time.Time) error {
	res, err := db.db.ExecContext(ctx, `UPDATE apps SET last_used_at = ? WHERE name = ? AND revoked_at = ''`, formatTime(at), name)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "recording the use of app %s in %s: %w", name, db.path, err)
	}
	n, err := db.affected(res, "recording the use of app "+name)
	if err != nil {
		return err
	}
	if n == 0 {
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no app named %s, or it was revoked (see jarvisbot apps list)", name)
	}
	return nil
}

func scanApp(row interface{ Scan(...any) error }) (store.App, error) {
	var a store.App
	var created, used, revoked string
	if err := row.Scan(&a.Name, &a.Scope, &a.KeyHash, &created, &used, &revoked); err != nil {
		return store.App{}, err
	}
	var err error
	if a.CreatedAt, err = parseTime(created); err != nil {
		return store.App{}, err
	}
	if a.LastUsedAt, err = parseOptionalTime(used); err != nil {
		return store.App{}, err
	}
	if a.RevokedAt, err = parseOptionalTime(revoked); err != nil {
		return store.App{}, err
	}
	return a, nil
}

// parseOptionalTime reads a time column where "" stands for never.
func parseOptionalTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return parseTime(s)
}

func isHexSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}
