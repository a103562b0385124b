package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

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
	// A run that exists already inserts nothing, so RETURNING gives no row.
	var id int64
	err := db.db.QueryRowContext(ctx, `INSERT INTO schedule_runs (skill, due_at, started_at, outcome, chat, delivery, error) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (skill, due_at) DO NOTHING RETURNING id`, r.Skill, formatTime(r.DueAt), started, r.Outcome, r.Chat, nz(r.Delivery, "pending"), r.Error).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, jarvisbot.Errorf(jarvisbot.ECONFLICT, "the run of %s due %s exists already", r.Skill, formatTime(r.DueAt))
	}
	if err != nil {
		return 0, jarvisbot.Errorf(jarvisbot.EINTERNAL, "recording a run of %s in %s: %w", r.Skill, db.path, err)
	}
	return id, nil
}

func nz(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// UpdateRun stores a run's progress, or returns ENOTFOUND for a run that
// was never claimed: its progress would otherwise be lost without a word.
func (db *DB) UpdateRun(ctx context.Context, r store.Run) error {
	fin := ""
	if !r.FinishedAt.IsZero() {
		fin = formatTime(r.FinishedAt)
	}
	started := ""
	if !r.StartedAt.IsZero() {
		started = formatTime(r.StartedAt)
	}
	res, err := db.db.ExecContext(ctx, `UPDATE schedule_runs SET started_at = ?, finished_at = ?, outcome = ?, error = ?, report = ?, chat = ?, delivery = ?, delivery_error = ?, attempts = ? WHERE id = ?`,
		started, fin, r.Outcome, r.Error, r.Report, r.Chat, nz(r.Delivery, "pending"), r.DeliveryError, r.Attempts, r.ID)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "updating run %d of %s in %s: %w", r.ID, r.Skill, db.path, err)
	}
	n, err := db.affected(res, fmt.Sprintf("updating run %d of %s", r.ID, r.Skill))
	if err != nil {
		return err
	}
	if n == 0 {
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "run %d of %s was never recorded in %s, so its progress cannot be kept", r.ID, r.Skill, db.path)
	}
	return nil
}

func scanRun(r scanner) (store.Run, error) {
	var x store.Run
	var due, started, fin string
	if err := r.Scan(&x.ID, &x.Skill, &due, &started, &fin, &x.Outcome, &x.Error, &x.Report, &x.Chat, &x.Delivery, &x.DeliveryError, &x.Attempts); err != nil {
		return x, err
	}
	var err error
	if x.DueAt, err = parseTime(due); err != nil {
		return x, fmt.Errorf("run %d of %s: due: %w", x.ID, x.Skill, err)
	}
	if started != "" {
		if x.StartedAt, err = parseTime(started); err != nil {
			return x, fmt.Errorf("run %d of %s: started: %w", x.ID, x.Skill, err)
		}
	}
	if fin != "" {
		if x.FinishedAt, err = parseTime(fin); err != nil {
			return x, fmt.Errorf("run %d of %s: finished: %w", x.ID, x.Skill, err)
		}
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

// RunAt returns the run of skill due at due.
func (db *DB) RunAt(ctx context.Context, skill string, due time.Time) (store.Run, error) {
	r, err := scanRun(db.db.QueryRowContext(ctx, `SELECT `+runColumns+` FROM schedule_runs WHERE skill = ? AND due_at = ?`, skill, formatTime(due)))
	if errors.Is(err, sql.ErrNoRows) {
		return r, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "%s has no run due %s", skill, formatTime(due))
	}
	if err != nil {
		return r, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading a run from %s: %w", db.path, err)
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
	return queryAll(ctx, db, "reading runs", scanRun, q, args...)
}

// UndeliveredRuns are finished runs whose report still waits to be sent.
func (db *DB) UndeliveredRuns(ctx context.Context) ([]store.Run, error) {
	return db.runs(ctx, `SELECT `+runColumns+` FROM schedule_runs WHERE outcome IN ('ok', 'failed') AND delivery IN ('pending', 'failed') ORDER BY id`)
}

// ScheduleState returns a skill's switches; a skill never seen has the zero state.
func (db *DB) ScheduleState(ctx context.Context, skill string) (store.ScheduleState, error) {
	return scheduleState(ctx, db.db, db.path, skill)
}

// querier is what reading needs of a database or a transaction.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func scheduleState(ctx context.Context, q querier, path, skill string) (store.ScheduleState, error) {
	s := store.ScheduleState{Skill: skill}
	var paused, alerted, told int
	err := q.QueryRowContext(ctx, `SELECT paused, failures, alerted, told_not_run FROM schedule_state WHERE skill = ?`, skill).Scan(&paused, &s.Failures, &alerted, &told)
	if errors.Is(err, sql.ErrNoRows) {
		return s, nil
	}
	if err != nil {
		return s, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the schedule state of %s from %s: %w", skill, path, err)
	}
	s.Paused, s.Alerted, s.ToldNotRun = paused == 1, alerted == 1, told == 1
	return s, nil
}

// UpdateScheduleState changes a skill's switches in one transaction that
// runs alone for the skill (txn.serialize), so nothing changes the row
// between the read and the write.
func (db *DB) UpdateScheduleState(ctx context.Context, skill string, change func(*store.ScheduleState)) (store.ScheduleState, error) {
	if strings.TrimSpace(skill) == "" {
		return store.ScheduleState{}, jarvisbot.Errorf(jarvisbot.EINVALID, "schedule state without a skill")
	}
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return store.ScheduleState{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot change the schedule state of %s in %s: %w", skill, db.path, err)
	}
	defer tx.Rollback() // no-op after Commit
	if err := tx.serialize(ctx, "schedule_state:"+skill); err != nil {
		return store.ScheduleState{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot change the schedule state of %s in %s: %w", skill, db.path, err)
	}
	s, err := scheduleState(ctx, tx, db.path, skill)
	if err != nil {
		return s, err
	}
	change(&s)
	s.Skill = skill
	if _, err := tx.ExecContext(ctx, `INSERT INTO schedule_state (skill, paused, failures, alerted, told_not_run) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (skill) DO UPDATE SET paused = excluded.paused, failures = excluded.failures, alerted = excluded.alerted, told_not_run = excluded.told_not_run`,
		s.Skill, boolInt(s.Paused), s.Failures, boolInt(s.Alerted), boolInt(s.ToldNotRun)); err != nil {
		return s, jarvisbot.Errorf(jarvisbot.EINTERNAL, "saving the schedule state of %s in %s: %w", skill, db.path, err)
	}
	if err := tx.Commit(); err != nil {
		return s, jarvisbot.Errorf(jarvisbot.EINTERNAL, "saving the schedule state of %s in %s: %w", skill, db.path, err)
	}
	return s, nil
}

// ArmSchedules records the armed schedules in one transaction and returns
// since when each has been armed.
func (db *DB) ArmSchedules(ctx context.Context, at time.Time, specs []store.ScheduleSpec) (map[string]time.Time, error) {
	fail := func(err error) (map[string]time.Time, error) {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "recording the armed schedules in %s: %w", db.path, err)
	}
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot record the armed schedules in %s: %w", db.path, err)
	}
	defer tx.Rollback() // no-op after Commit
	if err := tx.serialize(ctx, "schedule_armed"); err != nil {
		return fail(err)
	}
	armed := make(map[string]bool, len(specs))
	for _, sp := range specs {
		armed[sp.Skill] = true
		if _, err := tx.ExecContext(ctx, `INSERT INTO schedule_armed (skill, spec, zone, armed_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (skill) DO UPDATE SET spec = excluded.spec, zone = excluded.zone, armed_at = excluded.armed_at
			WHERE schedule_armed.spec <> excluded.spec OR schedule_armed.zone <> excluded.zone`, sp.Skill, sp.Spec, sp.Zone, formatTime(at)); err != nil {
			return fail(err)
		}
	}
	since, err := armedSince(ctx, tx)
	if err != nil {
		return fail(err)
	}
	// Schedules no longer armed go; deleted one by one, as the engines
	// spell "not in this list" differently and the list is short.
	for skill := range since {
		if armed[skill] {
			continue
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM schedule_armed WHERE skill = ?`, skill); err != nil {
			return fail(err)
		}
		delete(since, skill)
	}
	if err := tx.Commit(); err != nil {
		return fail(err)
	}
	return since, nil
}

func armedSince(ctx context.Context, tx *txn) (map[string]time.Time, error) {
	rows, err := tx.QueryContext(ctx, `SELECT skill, armed_at FROM schedule_armed`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	since := map[string]time.Time{}
	for rows.Next() {
		var skill, armed string
		if err := rows.Scan(&skill, &armed); err != nil {
			return nil, err
		}
		t, err := parseTime(armed)
		if err != nil {
			return nil, fmt.Errorf("armed time of %s: %w", skill, err)
		}
		since[skill] = t
	}
	return since, rows.Err()
}
