package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

var _ store.Conversations = (*DB)(nil)

// Conversation returns the agent's current conversation in the chat: its
// latest row, or one from the first message when /new was never sent.
func (db *DB) Conversation(ctx context.Context, chat, agent string) (store.Conversation, error) {
	c := store.Conversation{Chat: chat, Agent: agent}
	var begun, summarized string
	err := db.db.QueryRowContext(ctx, `SELECT after_id, begun_at, summary, covered_id, summarized_at FROM conversations
		WHERE chat = ? AND agent = ? ORDER BY after_id DESC LIMIT 1`, chat, agent).Scan(&c.After, &begun, &c.Summary, &c.Covered, &summarized)
	if errors.Is(err, sql.ErrNoRows) {
		return c, nil
	}
	if err != nil {
		return c, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the conversation of agent %s in chat %s from %s: %w", agent, chat, db.path, err)
	}
	if c.BegunAt, err = parseOptionalTime(begun); err == nil {
		c.SummarizedAt, err = parseOptionalTime(summarized)
	}
	if err != nil {
		return c, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the conversation of agent %s in chat %s from %s: %w", agent, chat, db.path, err)
	}
	return c, nil
}

// NewConversation starts the agent's conversation in the chat afresh,
// after the chat's last message. Sent twice with no message between, it
// is the same one.
func (db *DB) NewConversation(ctx context.Context, chat, agent string, at time.Time) (store.Conversation, error) {
	var last sql.NullInt64
	if err := db.db.QueryRowContext(ctx, `SELECT MAX(id) FROM messages WHERE chat = ?`, chat).Scan(&last); err != nil {
		return store.Conversation{}, jarvisbot.Errorf(jarvisbot.EINTERNAL, "starting a new conversation in chat %s in %s: %w", chat, db.path, err)
	}
	if _, err := db.db.ExecContext(ctx, `INSERT INTO conversations (chat, agent, after_id, begun_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (chat, agent, after_id) DO NOTHING`, chat, agent, last.Int64, formatTime(at)); err != nil {
		return store.Conversation{}, jarvisbot.Errorf(jarvisbot.EINTERNAL, "starting a new conversation in chat %s in %s: %w", chat, db.path, err)
	}
	return db.Conversation(ctx, chat, agent)
}

// SetSummary replaces the running summary of the agent's conversation
// that began after the message after, when it is still the current one
// and no summary covering as much was written since (two writers race
// only on replicas; the later one is told and drops its work).
func (db *DB) SetSummary(ctx context.Context, chat, agent string, after int64, summary string, covered int64, at time.Time) error {
	if covered <= after {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "a summary must cover messages of its conversation")
	}
	if after == 0 {
		// A conversation that never started afresh gets its row with the
		// first summary.
		if _, err := db.db.ExecContext(ctx, `INSERT INTO conversations (chat, agent, after_id, begun_at) VALUES (?, ?, 0, '')
			ON CONFLICT (chat, agent, after_id) DO NOTHING`, chat, agent); err != nil {
			return jarvisbot.Errorf(jarvisbot.EINTERNAL, "saving the summary of chat %s in %s: %w", chat, db.path, err)
		}
	}
	res, err := db.db.ExecContext(ctx, `UPDATE conversations SET summary = ?, covered_id = ?, summarized_at = ?
		WHERE chat = ? AND agent = ? AND after_id = ? AND covered_id < ?
		AND NOT EXISTS (SELECT 1 FROM conversations later WHERE later.chat = ? AND later.agent = ? AND later.after_id > ?)`,
		summary, covered, formatTime(at), chat, agent, after, covered, chat, agent, after)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "saving the summary of chat %s in %s: %w", chat, db.path, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return jarvisbot.Errorf(jarvisbot.ECONFLICT, "the conversation of agent %s in chat %s changed while it was summarised", agent, chat)
	}
	return nil
}

// MessagesAfter returns the chat's first limit messages of the agent (""
// for every agent's) with an id above after and at most upTo (0: no
// bound), oldest first.
func (db *DB) MessagesAfter(ctx context.Context, chat, agent string, after, upTo int64, limit int) ([]store.Message, error) {
	if limit <= 0 {
		limit = 200
	}
	if upTo <= 0 {
		upTo = 1<<63 - 1
	}
	rows, err := db.db.QueryContext(ctx, `SELECT id, chat, agent, role, content, created_at FROM messages
		WHERE chat = ? AND (agent = ? OR ? = '') AND id > ? AND id <= ? ORDER BY id LIMIT ?`, chat, agent, agent, after, upTo, limit)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading history from %s: %w", db.path, err)
	}
	return db.scanMessages(rows)
}

// ChatConversations lists each agent's conversation in each chat that has
// messages, the latest spoken in first.
func (db *DB) ChatConversations(ctx context.Context, limit int) ([]store.ChatConversation, error) {
	if limit <= 0 {
		limit = 100
	}
	rows, err := db.db.QueryContext(ctx, `SELECT chat, agent, COUNT(*), MAX(id) FROM messages GROUP BY chat, agent ORDER BY MAX(id) DESC LIMIT ?`, limit)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "listing the chats in %s: %w", db.path, err)
	}
	var out []store.ChatConversation
	var lastIDs []int64
	for rows.Next() {
		var c store.ChatConversation
		var last int64
		if err := rows.Scan(&c.Chat, &c.Agent, &c.Messages, &last); err != nil {
			rows.Close()
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "listing the chats in %s: %w", db.path, err)
		}
		out = append(out, c)
		lastIDs = append(lastIDs, last)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "listing the chats in %s: %w", db.path, err)
	}
	for i := range out {
		var at string
		if err := db.db.QueryRowContext(ctx, `SELECT created_at FROM messages WHERE id = ?`, lastIDs[i]).Scan(&at); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "listing the chats in %s: %w", db.path, err)
		}
		if out[i].LastAt, err = parseTime(at); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "listing the chats in %s: %w", db.path, err)
		}
		if out[i].Conversation, err = db.Conversation(ctx, out[i].Chat, out[i].Agent); err != nil {
			return nil, err
		}
	}
	return out, nil
}
