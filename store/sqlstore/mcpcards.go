package sqlstore

import (
	"context"
	"encoding/json"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

var _ store.MCPCards = (*DB)(nil)

// MCPCards are the owner's usage cards by server name.
func (db *DB) MCPCards(ctx context.Context) (map[string][]string, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT server, words FROM mcp_cards`)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the MCP servers' usage cards from %s: %w", db.path, err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var server, words string
		if err := rows.Scan(&server, &words); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the MCP servers' usage cards from %s: %w", db.path, err)
		}
		var list []string
		if err := json.Unmarshal([]byte(words), &list); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "the usage card of %s in %s cannot be read: %w", server, db.path, err)
		}
		out[server] = list
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the MCP servers' usage cards from %s: %w", db.path, err)
	}
	return out, nil
}

// SetMCPCard keeps words as server's usage card; no words takes it back.
func (db *DB) SetMCPCard(ctx context.Context, server string, words []string) error {
	if len(words) == 0 {
		if _, err := db.db.ExecContext(ctx, `DELETE FROM mcp_cards WHERE server = ?`, server); err != nil {
			return jarvisbot.Errorf(jarvisbot.EINTERNAL, "taking back the usage card of %s in %s: %w", server, db.path, err)
		}
		return nil
	}
	if _, err := db.MCPServer(ctx, server); err != nil {
		return err
	}
	b, err := json.Marshal(words)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "the usage card of %s: %w", server, err)
	}
	_, err = db.db.ExecContext(ctx, `INSERT INTO mcp_cards (server, words, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (server) DO UPDATE SET words = excluded.words, updated_at = excluded.updated_at`, server, string(b), formatTime(db.now()))
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "keeping the usage card of %s in %s: %w", server, db.path, err)
	}
	return nil
}
