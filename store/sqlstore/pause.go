package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jarvisbot/jarvisbot"
)

// Paused reports whether every agent is paused, by whom and since when.
func (db *DB) Paused(ctx context.Context) (bool, string, time.Time, error) {
	var by, at string
	err := db.db.QueryRowContext(ctx, `SELECT paused_by, paused_at FROM pause WHERE id = 1`).Scan(&by, &at)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, "", time.Time{}, nil
	case err != nil:
		return false, "", time.Time{}, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading whether jarvisbot is paused from %s: %w", db.path, err)
	}
	t, err := parseTime(at)
	return true, by, t, err
}

// SetPaused pauses every agent (by names who) or resumes them.
func (db *DB) SetPaused(ctx context.Context, paused bool, by string) error {
	var err error
	if paused {
		_, err = db.db.ExecContext(ctx, `INSERT INTO pause (id, paused_by, paused_at) VALUES (1, ?, ?)
			ON CONFLICT (id) DO UPDATE SET paused_by = excluded.paused_by, paused_at = excluded.paused_at`, by, formatTime(db.now()))
	} else {
		_, err = db.db.ExecContext(ctx, `DELETE FROM pause WHERE id = 1`)
	}
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "recording the pause in %s: %w", db.path, err)
	}
	return nil
}
