package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

var _ store.CLITools = (*DB)(nil)

// AddCLITool records a connected command-line program.
func (db *DB) AddCLITool(ctx context.Context, t store.CLITool) error {
	env, err := json.Marshal(nonNilMap(t.Env))
	if err != nil {
		return fmt.Errorf("encode env: %w", err)
	}
	res, err := db.db.ExecContext(ctx, `INSERT INTO cli_tools (name, path, env, timeout_ms, description, created_at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING`,
		t.Name, t.Path, string(env), t.Timeout.Milliseconds(), t.Description, formatTime(db.now()))
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "adding cli:%s to %s: %w", t.Name, db.path, err)
	}
	n, err := db.affected(res, "adding cli:"+t.Name)
	if err != nil {
		return err
	}
	if n == 0 {
		return jarvisbot.Errorf(jarvisbot.ECONFLICT, "cli:%s exists already: remove it first (jarvisbot cli remove %s)", t.Name, t.Name)
	}
	return nil
}

// CLITools returns every connected program sorted by name.
func (db *DB) CLITools(ctx context.Context) ([]store.CLITool, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT name, path, env, timeout_ms, description, created_at FROM cli_tools ORDER BY name`)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "listing CLI tools in %s: %w", db.path, err)
	}
	defer rows.Close()
	var out []store.CLITool
	for rows.Next() {
		var t store.CLITool
		var env, created string
		var ms int64
		if err := rows.Scan(&t.Name, &t.Path, &env, &ms, &t.Description, &created); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "listing CLI tools in %s: %w", db.path, err)
		}
		if err := json.Unmarshal([]byte(env), &t.Env); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "env of cli:%s in %s: %w", t.Name, db.path, err)
		}
		t.Timeout = time.Duration(ms) * time.Millisecond
		if t.CreatedAt, err = parseTime(created); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "cli:%s in %s: %w", t.Name, db.path, err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "listing CLI tools in %s: %w", db.path, err)
	}
	return out, nil
}

// RemoveCLITool forgets a connected program.
func (db *DB) RemoveCLITool(ctx context.Context, name string) error {
	res, err := db.db.ExecContext(ctx, `DELETE FROM cli_tools WHERE name = ?`, name)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "removing cli:%s from %s: %w", name, db.path, err)
	}
	n, err := db.affected(res, "removing cli:"+name)
	if err != nil {
		return err
	}
	if n == 0 {
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no CLI tool named %s (see jarvisbot cli list)", name)
	}
	return nil
}
