package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

var _ store.DelegateSessions = (*DB)(nil)

// DelegateSession returns the session id a delegate left for the agent in
// the chat, "" when there is none.
func (db *DB) DelegateSession(ctx context.Context, agent, chat string) (string, error) {
	var id string
	err := db.db.QueryRowContext(ctx, `SELECT session FROM delegate_sessions WHERE agent = ? AND chat = ?`, agent, chat).Scan(&id)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", nil
	case err != nil:
		return "", jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the CLI session of agent %s in chat %s from %s: %w", agent, chat, db.path, err)
	}
	return id, nil
}

// SetDelegateSession keeps the session id for the agent in the chat; ""
// forgets it.
func (db *DB) SetDelegateSession(ctx context.Context, agent, chat, id string) error {
	var err error
	if id == "" {
		_, err = db.db.ExecContext(ctx, `DELETE FROM delegate_sessions WHERE agent = ? AND chat = ?`, agent, chat)
	} else {
		_, err = db.db.ExecContext(ctx, `INSERT INTO delegate_sessions (agent, chat, session, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (agent, chat) DO UPDATE SET session = excluded.session, updated_at = excluded.updated_at`, agent, chat, id, formatTime(db.now()))
	}
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "keeping the CLI session of agent %s in chat %s in %s: %w", agent, chat, db.path, err)
	}
	return nil
}
