package sqlstore

import (
	"context"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

var (
	_ store.Preferences = (*DB)(nil)
	_ store.ToolUse     = (*DB)(nil)
)

func validPreferenceKind(kind string) error {
	if kind != "plugin" && kind != "mcp" {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "preference kind %q: want plugin or mcp", kind)
	}
	return nil
}

// Prefer marks a plugin or MCP server preferred as of now.
func (db *DB) Prefer(ctx context.Context, kind, name string) error {
	if err := validPreferenceKind(kind); err != nil {
		return err
	}
	_, err := db.db.ExecContext(ctx, `INSERT INTO preferences (kind, name, preferred_at) VALUES (?, ?, ?)
		ON CONFLICT (kind, name) DO UPDATE SET preferred_at = excluded.preferred_at`, kind, name, formatTime(db.now()))
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "marking %s %s preferred in %s: %w", kind, name, db.path, err)
	}
	return nil
}

// Unprefer removes a mark.
func (db *DB) Unprefer(ctx context.Context, kind, name string) error {
	if err := validPreferenceKind(kind); err != nil {
		return err
	}
	if _, err := db.db.ExecContext(ctx, `DELETE FROM preferences WHERE kind = ? AND name = ?`, kind, name); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "removing the preference for %s %s in %s: %w", kind, name, db.path, err)
	}
	return nil
}

// Preferred returns every mark, newest first.
func (db *DB) Preferred(ctx context.Context) ([]store.Preference, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT kind, name, preferred_at FROM preferences ORDER BY preferred_at DESC, kind, name`)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading preferences from %s: %w", db.path, err)
	}
	defer rows.Close()
	var out []store.Preference
	for rows.Next() {
		var p store.Preference
		var at string
		if err := rows.Scan(&p.Kind, &p.Name, &at); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading preferences from %s: %w", db.path, err)
		}
		p.At, _ = parseTime(at) // a bad time reads as the oldest mark
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading preferences from %s: %w", db.path, err)
	}
	return out, nil
}

// LastUsed returns, per tool, the time of its last call that ran: a call
// denied or expired was not a use.
func (db *DB) LastUsed(ctx context.Context) (map[string]time.Time, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT tool, MAX(at) FROM activity
		WHERE outcome NOT IN ('denied', 'expired') GROUP BY tool`)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading tool use from %s: %w", db.path, err)
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var tool, at string
		if err := rows.Scan(&tool, &at); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading tool use from %s: %w", db.path, err)
		}
		if t, err := parseTime(at); err == nil {
			out[tool] = t
		}
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading tool use from %s: %w", db.path, err)
	}
	return out, nil
}
