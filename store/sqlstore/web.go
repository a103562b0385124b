package sqlstore

import (
	"context"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

var _ store.WebLogins = (*DB)(nil)

// AddWebLink records a one-time link's hash.
func (db *DB) AddWebLink(ctx context.Context, hash string, expires time.Time) error {
	if !isHexSHA256(hash) {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "a sign-in link's hash must be 64 lowercase hex digits (SHA-256); the link itself is never stored")
	}
	if _, err := db.db.ExecContext(ctx, `INSERT INTO web_links (hash, expires_at) VALUES (?, ?)`, hash, formatTime(expires)); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "recording a sign-in link in %s: %w", db.path, err)
	}
	return nil
}

// TakeWebLink uses the link up in one conditional update, so two
// requests with the same link cannot both sign in. Signing in is rare, so
// it is also when links and sessions past their time (on the caller's
// clock) are removed: the tables stay as small as their use.
func (db *DB) TakeWebLink(ctx context.Context, hash string, now time.Time) (bool, error) {
	for _, table := range []string{"web_links", "web_sessions"} {
		if _, err := db.db.ExecContext(ctx, `DELETE FROM `+table+` WHERE expires_at <= ?`, formatTime(now)); err != nil {
			return false, jarvisbot.Errorf(jarvisbot.EINTERNAL, "removing expired dashboard sign-ins from %s: %w", db.path, err)
		}
	}
	res, err := db.db.ExecContext(ctx, `UPDATE web_links SET used_at = ? WHERE hash = ? AND used_at = '' AND expires_at > ?`,
		formatTime(now), hash, formatTime(now))
	if err != nil {
		return false, jarvisbot.Errorf(jarvisbot.EINTERNAL, "using a sign-in link in %s: %w", db.path, err)
	}
	n, err := db.affected(res, "using a sign-in link")
	return n == 1, err
}

// AddWebSession records a session's hash.
func (db *DB) AddWebSession(ctx context.Context, hash string, expires time.Time) error {
	if !isHexSHA256(hash) {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "a session's hash must be 64 lowercase hex digits (SHA-256); the token itself is never stored")
	}
	if _, err := db.db.ExecContext(ctx, `INSERT INTO web_sessions (hash, created_at, expires_at) VALUES (?, ?, ?)`, hash, formatTime(db.now()), formatTime(expires)); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "recording a dashboard session in %s: %w", db.path, err)
	}
	return nil
}

// WebSession reports whether the session is live.
func (db *DB) WebSession(ctx context.Context, hash string, now time.Time) (bool, error) {
	var n int
	err := db.db.QueryRowContext(ctx, `SELECT count(*) FROM web_sessions WHERE hash = ? AND expires_at > ?`, hash, formatTime(now)).Scan(&n)
	if err != nil {
		return false, jarvisbot.Errorf(jarvisbot.EINTERNAL, "looking up a dashboard session in %s: %w", db.path, err)
	}
	return n == 1, nil
}

// EndWebSession removes the session.
func (db *DB) EndWebSession(ctx context.Context, hash string) error {
	if _, err := db.db.ExecContext(ctx, `DELETE FROM web_sessions WHERE hash = ?`, hash); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "ending a dashboard session in %s: %w", db.path, err)
	}
	return nil
}
