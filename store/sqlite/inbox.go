package sqlite

import (
	"context"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

var _ store.Inbox = (*DB)(nil)

// Receive stores a received message.
func (db *DB) Receive(ctx context.Context, m store.Incoming) (int64, error) {
	res, err := db.db.ExecContext(ctx, `INSERT INTO inbox (chat, user, name, text, received_at) VALUES (?, ?, ?, ?, ?)`, m.Chat, m.User, m.Name, m.Text, formatTime(db.now()))
	if err != nil {
		return 0, jarvisbot.Errorf(jarvisbot.EINTERNAL, "storing a received message in %s: %w", db.path, err)
	}
	return db.insertedID(res, "storing a received message")
}

// Answered removes a message whose turn is done.
func (db *DB) Answered(ctx context.Context, id int64) error {
	if _, err := db.db.ExecContext(ctx, `DELETE FROM inbox WHERE id = ?`, id); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "clearing a received message in %s: %w", db.path, err)
	}
	return nil
}

// Waiting returns the messages not yet answered, oldest first.
func (db *DB) Waiting(ctx context.Context) ([]store.Incoming, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT id, chat, user, name, text FROM inbox ORDER BY id`)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the inbox in %s: %w", db.path, err)
	}
	defer rows.Close()
	var out []store.Incoming
	for rows.Next() {
		var m store.Incoming
		if err := rows.Scan(&m.ID, &m.Chat, &m.User, &m.Name, &m.Text); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the inbox in %s: %w", db.path, err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the inbox in %s: %w", db.path, err)
	}
	return out, nil
}
