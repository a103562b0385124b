package sqlstore

import (
	"context"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

var _ store.Channels = (*DB)(nil)

// AddOwner records a paired owner.
func (db *DB) AddOwner(ctx context.Context, user string) error {
	_, err := db.db.ExecContext(ctx, `INSERT INTO owners ("user", paired_at) VALUES (?, ?) ON CONFLICT ("user") DO NOTHING`, user, formatTime(db.now()))
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "saving owner in %s: %w", db.path, err)
	}
	return nil
}

// Owners lists the paired owners.
func (db *DB) Owners(ctx context.Context) ([]string, error) {
	return db.strings(ctx, `SELECT "user" FROM owners ORDER BY "user"`)
}

func (db *DB) strings(ctx context.Context, q string, args ...any) ([]string, error) {
	rows, err := db.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading %s: %w", db.path, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading %s: %w", db.path, err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading %s: %w", db.path, err)
	}
	return out, nil
}

// SetApprovalMessage remembers where an approval request was drawn.
func (db *DB) SetApprovalMessage(ctx context.Context, approval, chat, messageID string) error {
	_, err := db.db.ExecContext(ctx, `INSERT INTO approval_messages (approval, chat, message_id) VALUES (?, ?, ?)
		ON CONFLICT (approval, chat) DO UPDATE SET message_id = excluded.message_id`, approval, chat, messageID)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "saving approval message in %s: %w", db.path, err)
	}
	return nil
}

// ForgetApprovalMessage drops where a request was to be drawn.
func (db *DB) ForgetApprovalMessage(ctx context.Context, approval, chat string) error {
	if _, err := db.db.ExecContext(ctx, `DELETE FROM approval_messages WHERE approval = ? AND chat = ?`, approval, chat); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "forgetting an approval message in %s: %w", db.path, err)
	}
	return nil
}

// ApprovalMessages returns where a request was drawn, by chat.
func (db *DB) ApprovalMessages(ctx context.Context, approval string) (map[string]string, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT chat, message_id FROM approval_messages WHERE approval = ?`, approval)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading approval messages in %s: %w", db.path, err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var c, m string
		if err := rows.Scan(&c, &m); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading approval messages in %s: %w", db.path, err)
		}
		out[c] = m
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading approval messages in %s: %w", db.path, err)
	}
	return out, nil
}

// KeepUndelivered stores a reply that could not be sent.
func (db *DB) KeepUndelivered(ctx context.Context, u store.Undelivered) error {
	_, err := db.db.ExecContext(ctx, `INSERT INTO outbox (chat, text, error, created_at) VALUES (?, ?, ?, ?)`, u.Chat, u.Text, u.Error, formatTime(db.now()))
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "keeping an undelivered reply in %s: %w", db.path, err)
	}
	return nil
}

// Undelivered lists the kept replies, oldest first.
func (db *DB) Undelivered(ctx context.Context) ([]store.Undelivered, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT id, chat, text, error, created_at FROM outbox ORDER BY id`)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the outbox in %s: %w", db.path, err)
	}
	defer rows.Close()
	var out []store.Undelivered
	for rows.Next() {
		var u store.Undelivered
		var at string
		if err := rows.Scan(&u.ID, &u.Chat, &u.Text, &u.Error, &at); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the outbox in %s: %w", db.path, err)
		}
		// A reply whose time does not read is still delivered: its time
		// is for people, and the id orders the outbox.
		if t, err := parseTime(at); err == nil {
			u.CreatedAt = t
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the outbox in %s: %w", db.path, err)
	}
	return out, nil
}

// Delivered removes a kept reply once it went out.
func (db *DB) Delivered(ctx context.Context, id int64) error {
	if _, err := db.db.ExecContext(ctx, `DELETE FROM outbox WHERE id = ?`, id); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "clearing delivered reply %d from the outbox in %s: %w", id, db.path, err)
	}
	return nil
}
