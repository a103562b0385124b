package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

var _ store.ChatAgents = (*DB)(nil)

// ChatAgent is the agent the owner switched the chat to, "" for none.
func (db *DB) ChatAgent(ctx context.Context, chat string) (string, error) {
	var agent string
	err := db.db.QueryRowContext(ctx, `SELECT agent FROM chat_agents WHERE chat = ?`, chat).Scan(&agent)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the agent of chat %s from %s: %w", chat, db.path, err)
	}
	return agent, nil
}

// SetChatAgent switches the chat to an existing agent; "" takes the
// switch back.
func (db *DB) SetChatAgent(ctx context.Context, chat, agent string, at time.Time) error {
	if agent == "" {
		if _, err := db.db.ExecContext(ctx, `DELETE FROM chat_agents WHERE chat = ?`, chat); err != nil {
			return jarvisbot.Errorf(jarvisbot.EINTERNAL, "switching chat %s back in %s: %w", chat, db.path, err)
		}
		return nil
	}
	if _, err := db.Agent(ctx, agent); err != nil {
		return err
	}
	if _, err := db.db.ExecContext(ctx, `INSERT INTO chat_agents (chat, agent, set_at) VALUES (?, ?, ?)
		ON CONFLICT (chat) DO UPDATE SET agent = excluded.agent, set_at = excluded.set_at`, chat, agent, formatTime(at)); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "switching chat %s to agent %s in %s: %w", chat, agent, db.path, err)
	}
	return nil
}

// ChatAgentSwitches are every chat's switch, by chat.
func (db *DB) ChatAgentSwitches(ctx context.Context) (map[string]string, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT chat, agent FROM chat_agents`)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the chats' agents from %s: %w", db.path, err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var chat, agent string
		if err := rows.Scan(&chat, &agent); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the chats' agents from %s: %w", db.path, err)
		}
		out[chat] = agent
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the chats' agents from %s: %w", db.path, err)
	}
	return out, nil
}
