package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

var (
	_ store.Approvals   = (*DB)(nil)
	_ store.ActivityLog = (*DB)(nil)
)

const approvalColumns = `id, tool, summary, args, agent, chat, state, always, decided_by, created_at, expires_at, decided_at, apps`

// CreateApproval stores a pending request.
func (db *DB) CreateApproval(ctx context.Context, a store.Approval) error {
	args := a.Args
	if len(args) == 0 {
		args = []byte("{}")
	}
	_, err := db.db.ExecContext(ctx, `INSERT INTO approvals (`+approvalColumns+`) VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, '', ?, ?, '', ?)`,
		a.ID, a.Tool, a.Summary, string(args), a.Agent, a.Chat, formatTime(a.CreatedAt), formatTime(a.ExpiresAt), strings.Join(a.Apps, ","))
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "storing approval request for %s in %s: %w", a.Tool, db.path, err)
	}
	return nil
}

func scanApproval(r interface{ Scan(...any) error }) (store.Approval, error) {
	var a store.Approval
	var args, state, created, expires, decided, apps string
	var always int
	if err := r.Scan(&a.ID, &a.Tool, &a.Summary, &args, &a.Agent, &a.Chat, &state, &always, &a.DecidedBy, &created, &expires, &decided, &apps); err != nil {
		return a, err
	}
	if apps != "" {
		a.Apps = strings.Split(apps, ",") // app names hold no ','
	}
	a.Args, a.State, a.Always = []byte(args), store.ApprovalState(state), always == 1
	var err error
	if a.CreatedAt, err = parseTime(created); err != nil {
		return a, err
	}
	if a.ExpiresAt, err = parseTime(expires); err != nil {
		return a, err
	}
	if decided != "" {
		a.DecidedAt, err = parseTime(decided)
	}
	return a, err
}

// Approval returns one request.
func (db *DB) Approval(ctx context.Context, id string) (store.Approval, error) {
	a, err := scanApproval(db.db.QueryRowContext(ctx, `SELECT `+approvalColumns+` FROM approvals WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return a, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no approval request %q", id)
	}
	if err != nil {
		return a, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading approval request from %s: %w", db.path, err)
	}
	return a, nil
}

// PendingApprovals returns every pending request, oldest first.
func (db *DB) PendingApprovals(ctx context.Context) ([]store.Approval, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT `+approvalColumns+` FROM approvals WHERE state = 'pending' ORDER BY created_at`)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "listing approval requests in %s: %w", db.path, err)
	}
	defer rows.Close()
	var out []store.Approval
	for rows.Next() {
		a, err := scanApproval(rows)
		if err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "listing approval requests in %s: %w", db.path, err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "listing approval requests in %s: %w", db.path, err)
	}
	return out, nil
}

// DecideApproval takes a decision once: the UPDATE only matches a pending
// row, so of two taps, two devices or two channels exactly one wins.
func (db *DB) DecideApproval(ctx context.Context, id string, state store.ApprovalState, by string, always bool, at time.Time) (store.Approval, error) {
	switch state {
	case store.ApprovalApproved, store.ApprovalDenied, store.ApprovalExpired:
	default:
		return store.Approval{}, jarvisbot.Errorf(jarvisbot.EINVALID, "approval decision %q: want approved, denied or expired", state)
	}
	res, err := db.db.ExecContext(ctx, `UPDATE approvals SET state = ?, always = ?, decided_by = ?, decided_at = ? WHERE id = ? AND state = 'pending'`,
		string(state), boolInt(always), by, formatTime(at), id)
	if err != nil {
		return store.Approval{}, jarvisbot.Errorf(jarvisbot.EINTERNAL, "deciding approval request in %s: %w", db.path, err)
	}
	n, err := db.affected(res, "deciding approval request "+id)
	if err != nil {
		return store.Approval{}, err
	}
	a, err := db.Approval(ctx, id)
	if err != nil {
		return a, err
	}
	if n == 0 {
		return a, jarvisbot.Errorf(jarvisbot.ECONFLICT, "this request was already %s", a.State)
	}
	return a, nil
}

// Grant records "always for this tool".
func (db *DB) Grant(ctx context.Context, tool, by string) error {
	_, err := db.db.ExecContext(ctx, `INSERT INTO approval_grants (tool, granted_by, granted_at) VALUES (?, ?, ?)
		ON CONFLICT (tool) DO UPDATE SET granted_by = excluded.granted_by, granted_at = excluded.granted_at`, tool, by, formatTime(db.now()))
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "granting %s in %s: %w", tool, db.path, err)
	}
	return nil
}

// Granted reports whether a tool has a standing approval.
func (db *DB) Granted(ctx context.Context, tool string) (bool, error) {
	var n int
	if err := db.db.QueryRowContext(ctx, `SELECT count(*) FROM approval_grants WHERE tool = ?`, tool).Scan(&n); err != nil {
		return false, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading grants in %s: %w", db.path, err)
	}
	return n > 0, nil
}

// Revoke removes a standing approval, or returns ENOTFOUND.
func (db *DB) Revoke(ctx context.Context, tool string) error {
	res, err := db.db.ExecContext(ctx, `DELETE FROM approval_grants WHERE tool = ?`, tool)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "revoking %s in %s: %w", tool, db.path, err)
	}
	n, err := db.affected(res, "revoking "+tool)
	if err != nil {
		return err
	}
	if n == 0 {
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "%s has no standing approval", tool)
	}
	return nil
}

// Grants lists the tools with a standing approval.
func (db *DB) Grants(ctx context.Context) ([]string, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT tool FROM approval_grants ORDER BY tool`)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "listing grants in %s: %w", db.path, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "listing grants in %s: %w", db.path, err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "listing grants in %s: %w", db.path, err)
	}
	return out, nil
}

// RecordActivity adds an entry to the activity board.
func (db *DB) RecordActivity(ctx context.Context, a store.Activity) error {
	at := a.At
	if at.IsZero() {
		at = db.now()
	}
	_, err := db.db.ExecContext(ctx, `INSERT INTO activity (at, agent, app, tool, tier, args, outcome, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		formatTime(at), a.Agent, a.App, a.Tool, a.Tier, a.Args, a.Outcome, a.Duration.Milliseconds())
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "recording activity in %s: %w", db.path, err)
	}
	return nil
}

// RecentActivity returns the newest entries first.
func (db *DB) RecentActivity(ctx context.Context, limit int) ([]store.Activity, error) {
	if limit <= 0 {
		limit = 50
	}
	rows, err := db.db.QueryContext(ctx, `SELECT at, agent, app, tool, tier, args, outcome, duration_ms FROM activity ORDER BY at DESC, id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading activity from %s: %w", db.path, err)
	}
	defer rows.Close()
	var out []store.Activity
	for rows.Next() {
		var a store.Activity
		var at string
		var ms int64
		if err := rows.Scan(&at, &a.Agent, &a.App, &a.Tool, &a.Tier, &a.Args, &a.Outcome, &ms); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading activity from %s: %w", db.path, err)
		}
		a.Duration = time.Duration(ms) * time.Millisecond
		var err error
		if a.At, err = parseTime(at); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading activity from %s: an entry of %s: %w", db.path, a.Tool, err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading activity from %s: %w", db.path, err)
	}
	return out, nil
}
