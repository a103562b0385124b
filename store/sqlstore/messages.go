package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

var _ store.Messages = (*DB)(nil)

// AppendMessage stores one message of a conversation.
func (db *DB) AppendMessage(ctx context.Context, m store.Message) (int64, error) {
	if !json.Valid(m.Content) {
		return 0, jarvisbot.Errorf(jarvisbot.EINVALID, "message content is not JSON")
	}
	at := m.CreatedAt
	if at.IsZero() {
		at = db.now()
	}
	fail := func(err error) (int64, error) {
		return 0, jarvisbot.Errorf(jarvisbot.EINTERNAL, "storing a message in %s: %w", db.path, err)
	}
	// The message and its words in the search index (A6) are one
	// transaction: what is stored can be found.
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback() // no-op after Commit
	var id int64
	if err := tx.QueryRowContext(ctx, `INSERT INTO messages (chat, agent, role, content, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id`,
		m.Chat, m.Agent, m.Role, string(m.Content), formatTime(at)).Scan(&id); err != nil {
		return fail(err)
	}
	if err := db.indexMessage(ctx, tx, id, m, at); err != nil {
		return fail(fmt.Errorf("indexing it for search: %w", err))
	}
	if err := tx.Commit(); err != nil {
		return fail(err)
	}
	return id, nil
}

// History returns the chat's last limit messages, oldest first.
func (db *DB) History(ctx context.Context, chat string, limit int) ([]store.Message, error) {
	if limit <= 0 {
		limit = 200
	}
	rows, err := db.db.QueryContext(ctx, `SELECT id, chat, agent, role, content, created_at FROM messages WHERE chat = ? ORDER BY id DESC LIMIT ?`, chat, limit)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading history from %s: %w", db.path, err)
	}
	out, err := db.scanMessages(rows)
	slices.Reverse(out)
	return out, err
}

// scanMessages reads message rows and closes them.
func (db *DB) scanMessages(rows *sql.Rows) ([]store.Message, error) {
	defer rows.Close()
	var out []store.Message
	for rows.Next() {
		var m store.Message
		var content, at string
		if err := rows.Scan(&m.ID, &m.Chat, &m.Agent, &m.Role, &content, &at); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading history from %s: %w", db.path, err)
		}
		m.Content = []byte(content)
		var err error
		if m.CreatedAt, err = parseTime(at); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading history from %s: message %d: %w", db.path, m.ID, err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading history from %s: %w", db.path, err)
	}
	return out, nil
}
