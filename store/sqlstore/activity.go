package sqlstore

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

var _ store.ActivityBoard = (*DB)(nil)

// activityWhere is the filter as SQL over the activity table, with its
// arguments. Prefixes are compared with substr, not LIKE, so a tool id's
// "_" or "%" is a plain character.
func activityWhere(f store.ActivityFilter) (string, []any) {
	var conds []string
	var args []any
	if f.Agent != "" {
		conds = append(conds, "agent = ?")
		args = append(args, f.Agent)
	}
	if prefix, ok := strings.CutSuffix(f.Tool, "*"); ok {
		conds = append(conds, "substr(tool, 1, length(CAST(? AS TEXT))) = ?")
		args = append(args, prefix, prefix)
	} else if f.Tool != "" {
		conds = append(conds, "tool = ?")
		args = append(args, f.Tool)
	}
	if f.Outcome != "" {
		conds = append(conds, "(outcome = ? OR substr(outcome, 1, length(CAST(? AS TEXT)) + 1) = CAST(? AS TEXT) || ':')")
		args = append(args, f.Outcome, f.Outcome, f.Outcome)
	}
	if len(conds) == 0 {
		return "1 = 1", nil
	}
	return strings.Join(conds, " AND "), args
}

// ActivityBoard returns the filtered board, newest first.
func (db *DB) ActivityBoard(ctx context.Context, f store.ActivityFilter, limit int) ([]store.ActivityEntry, error) {
	if limit <= 0 {
		limit = 50
	}
	where, args := activityWhere(f)
	return db.activity(ctx, `SELECT id, at, agent, app, tool, tier, args, outcome, duration_ms FROM activity WHERE `+where+` ORDER BY at DESC, id DESC LIMIT ?`, append(args, limit)...)
}

// ActivitySince returns the filtered entries after the id, oldest first.
func (db *DB) ActivitySince(ctx context.Context, f store.ActivityFilter, after int64, limit int) ([]store.ActivityEntry, error) {
	if limit <= 0 {
		limit = 50
	}
	where, args := activityWhere(f)
	args = append([]any{after}, args...)
	return db.activity(ctx, `SELECT id, at, agent, app, tool, tier, args, outcome, duration_ms FROM activity WHERE id > ? AND `+where+` ORDER BY id LIMIT ?`, append(args, limit)...)
}

// LastActivityID is the newest entry's id.
func (db *DB) LastActivityID(ctx context.Context) (int64, error) {
	var id sql.NullInt64
	if err := db.db.QueryRowContext(ctx, `SELECT max(id) FROM activity`).Scan(&id); err != nil {
		return 0, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading activity from %s: %w", db.path, err)
	}
	return id.Int64, nil
}

func (db *DB) activity(ctx context.Context, query string, args ...any) ([]store.ActivityEntry, error) {
	rows, err := db.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading activity from %s: %w", db.path, err)
	}
	defer rows.Close()
	var out []store.ActivityEntry
	for rows.Next() {
		var e store.ActivityEntry
		var at string
		var ms int64
		if err := rows.Scan(&e.ID, &at, &e.Agent, &e.App, &e.Tool, &e.Tier, &e.Args, &e.Outcome, &ms); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading activity from %s: %w", db.path, err)
		}
		e.Duration = time.Duration(ms) * time.Millisecond
		if e.At, err = parseTime(at); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading activity from %s: an entry of %s: %w", db.path, e.Tool, err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading activity from %s: %w", db.path, err)
	}
	return out, nil
}
