package sqlstore

import (
	"context"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

var _ store.ModelCalls = (*DB)(nil)

// RecordModelCall adds a call to the usage record.
func (db *DB) RecordModelCall(ctx context.Context, c store.ModelCall) error {
	at := c.At
	if at.IsZero() {
		at = db.now()
	}
	_, err := db.db.ExecContext(ctx, `INSERT INTO model_calls (at, agent, source, chat, provider, model, input_tokens, output_tokens,
		cache_read_tokens, cache_write_tokens, duration_ms, outcome, tools_sent, tool_tokens, catalog_tokens)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		formatTime(at), c.Agent, c.Source, c.Chat, c.Provider, c.Model, c.InputTokens, c.OutputTokens,
		c.CacheReadTokens, c.CacheWriteTokens, c.Duration.Milliseconds(), c.Outcome, c.ToolsSent, c.ToolTokens, c.CatalogTokens)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "recording a model call in %s: %w", db.path, err)
	}
	return nil
}

// ModelCallsSince returns the calls at or after since, oldest first.
func (db *DB) ModelCallsSince(ctx context.Context, since time.Time) ([]store.ModelCall, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT id, at, agent, source, chat, provider, model, input_tokens, output_tokens,
		cache_read_tokens, cache_write_tokens, duration_ms, outcome, tools_sent, tool_tokens, catalog_tokens
		FROM model_calls WHERE at >= ? ORDER BY at, id`, formatTime(since))
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading model calls from %s: %w", db.path, err)
	}
	defer rows.Close()
	var out []store.ModelCall
	for rows.Next() {
		var c store.ModelCall
		var at string
		var ms int64
		if err := rows.Scan(&c.ID, &at, &c.Agent, &c.Source, &c.Chat, &c.Provider, &c.Model, &c.InputTokens, &c.OutputTokens,
			&c.CacheReadTokens, &c.CacheWriteTokens, &ms, &c.Outcome, &c.ToolsSent, &c.ToolTokens, &c.CatalogTokens); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading model calls from %s: %w", db.path, err)
		}
		c.Duration = time.Duration(ms) * time.Millisecond
		if c.At, err = parseTime(at); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading model calls from %s: call %d: %w", db.path, c.ID, err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading model calls from %s: %w", db.path, err)
	}
	return out, nil
}
