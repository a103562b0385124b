package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

var _ store.Schedules = (*DB)(nil)

const runColumns = `id, skill, due_at, started_at, finished_at, outcome, error, report, chat, delivery, delivery_error, attempts`

// ClaimRun records a run before it fires.
func (db *DB) ClaimRun(ctx context.Context, r store.Run) (int64, error) {
	started := ""
	if !r.StartedAt.IsZero() {
		started = formatTime(r.StartedAt)
	}
	res, err := db.db.ExecContext(ctx, `INSERT INTO schedule_runs (skill, due_at, started_at, outcome, chat, delivery, error) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (skill, due_at) DO NOTHING`, r.Skill, formatTime(r.DueAt), started, r.Outcome, r.Chat, nz(r.Delivery, "pending"), r.Error)
	if err != nil {
		return 0, jarvisbot.Errorf(jarvisbot.EINTERNAL, "recording a run of %s in %s: %w", r.Skill, db.path, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return 0, jarvisbot.Errorf(jarvisbot.ECONFLICT, "the run of %s due %s exists already", r.Skill, formatTime(r.DueAt))
	}
	return res.LastInsertId()
}

func nz(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// UpdateRun stores a run's progress.
func (db *DB) UpdateRun(ctx context.Context, r store.Run) error {
	fin := ""
	if !r.FinishedAt.IsZero() {
		fin = formatTime(r.FinishedAt)
	}
	started := ""
	if !r.StartedAt.IsZero() {
		started = formatTime(r.StartedAt)
	}
	_, err := db.db.ExecContext(ctx, `UPDATE schedule_runs SET started_at = ?, finished_at = ?, outcome = ?, error = ?, report = ?, chat = ?, delivery = ?, delivery_error = ?, attempts = ? WHERE id = ?`,
		started, fin, r.Outcome, r.Error, r.Report, r.Chat, nz(r.Delivery, "pending"), r.DeliveryError, r.Attempts, r.ID)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "updating a run in %s: %w", db.path, err)
	}
	return nil
}

func scanRun(r interface{ Scan(...any) error }) (store.Run, error) {
	var x store.Run
	var due, started, fin string
	if err := r.Scan(&x.ID, &x.Skill, &due, &started, &fin, &x.Outcome, &x.Error, &x.Report, &x.Chat, &x.Delivery, &x.DeliveryError, &x.Attempts); err != nil {
		return x, err
	}
	x.DueAt, _ = parseTime(due)
	if started != "" {
		x.StartedAt, _ = parseTime(started)
	}
	if fin != "" {
		x.FinishedAt, _ = parseTime(fin)
	}
	return x, nil
}

// LastRun returns a skill's latest run by due time.
func (db *DB) LastRun(ctx context.Context, skill string) (store.Run, error) {
	r, err := scanRun(db.db.QueryRowContext(ctx, `SELECT `+runColumns+` FROM schedule_runs WHERE skill = ? ORDER BY due_at DESC, id DESC LIMIT 1`, skill))
	if errors.Is(err, sql.ErrNoRows) {
		return r, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "%s has not run yet", skill)
	}
	if err != nil {
		return r, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading runs from %s: %w", db.path, err)
	}
	return r, nil
}

// Runs returns a skill's runs, newest first ("" for every skill).
func (db *DB) Runs(ctx context.Context, skill string, limit int) ([]store.Run, error) {
	if limit <= 0 {
		limit = 20
	}
	q := `SELECT ` + runColumns + ` FROM schedule_runs`
	args := []any{}
	if skill != "" {
		q += ` WHERE skill = ?`
		args = append(args, skill)
	}
	q += ` ORDER BY due_at DESC, id DESC LIMIT ?`
	args = append(args, limit)
	return db.runs(ctx, q, args...)
}

func (db *DB) runs(ctx context.Context, q string, args ...any) ([]store.Run, error) {
	rows, err := db.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading runs from %s: %w", db.path, err)
	}
	defer rows.Close()
	var out []store.Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// UndeliveredRuns are finished runs whose report still waits to be sent.
func (db *DB) UndeliveredRuns(ctx context.Context) ([]store.Run, error) {
	return db.runs(ctx, `SELECT `+runColumns+` FROM schedule_runs WHERE outcome IN ('ok', 'failed') AND delivery IN ('pending', 'failed') ORDER BY id`)
}

// ScheduleState returns a skill's switches; a skill never seen has the zero state.
func (db *DB) ScheduleState(ctx context.Context, skill string) (store.ScheduleState, error) {
	s := store.ScheduleState{Skill: skill}
	var paused, alerted int
	err := db.db.QueryRowContext(ctx, `SELECT paused, failures, alerted FROM schedule_state WHERE skill = ?`, skill).Scan(&paused, &s.Failures, &alerted)
	if errors.Is(err, sql.ErrNoRows) {
		return s, nil
	}
	if err != nil {
		return s, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading schedule state from %s: %w", db.path, err)
	}
	s.Paused, s.Alerted = paused == 1, alerted == 1
	return s, nil
}

// SetScheduleState stores a skill's switches.
func (db *DB) SetScheduleState(ctx context.Context, s store.ScheduleState) error {
	if strings.TrimSpace(s.Skill) == "" {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "schedule state without a skill")
	}
	_, err := db.db.ExecContext(ctx, `INSERT INTO schedule_state (skill, paused, failures, alerted) VALUES (?, ?, ?, ?)
		ON CONFLICT (skill) DO UPDATE SET paused = excluded.paused, failures = excluded.failures, alerted = excluded.alerted`,
		s.Skill, boolInt(s.Paused), s.Failures, boolInt(s.Alerted))
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "saving schedule state in %s: %w", db.path, err)
	}
	return nil
}
