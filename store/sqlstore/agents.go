package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/names"
	"github.com/jarvisbot/jarvisbot/store"
)

var _ store.Agents = (*DB)(nil)

const agentColumns = `name, description, allow, block, focus, created_at, updated_at, provider`

// Agent returns the named agent, or an ENOTFOUND error.
func (db *DB) Agent(ctx context.Context, name string) (store.Agent, error) {
	row := db.db.QueryRowContext(ctx, `SELECT `+agentColumns+` FROM agents WHERE name = ?`, name)
	a, err := scanAgent(row)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Agent{}, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "agent %q does not exist", name)
	}
	if err != nil {
		return store.Agent{}, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading agent %q from %s: %w", name, db.path, err)
	}
	return a, nil
}

// Agents returns every agent sorted by name.
func (db *DB) Agents(ctx context.Context) ([]store.Agent, error) {
	return queryAll(ctx, db, "listing agents", scanAgent, `SELECT `+agentColumns+` FROM agents ORDER BY name`)
}

// CreateAgent adds a new agent: ECONFLICT if the name is taken, EINVALID if
// the name is not valid.
func (db *DB) CreateAgent(ctx context.Context, a store.Agent) error {
	created, err := db.insertAgent(ctx, a)
	if err != nil {
		return err
	}
	if !created {
		return jarvisbot.Errorf(jarvisbot.ECONFLICT, "agent %q already exists: choose another name or update it", a.Name)
	}
	return nil
}

// EnsureAgent creates a only if no agent of that name exists, and reports
// whether it did. An existing agent is left as the owner last changed it, so
// seeding from config at every start never undoes an edit.
func (db *DB) EnsureAgent(ctx context.Context, a store.Agent) (created bool, err error) {
	return db.insertAgent(ctx, a)
}

func (db *DB) insertAgent(ctx context.Context, a store.Agent) (bool, error) {
	if err := names.ValidAgent(a.Name); err != nil {
		return false, err
	}
	if err := store.ValidAgentDescription(a.Name, a.Description); err != nil {
		return false, err
	}
	lists, err := encodeLists(a)
	if err != nil {
		return false, err
	}
	now := formatTime(db.now())
	// ON CONFLICT DO NOTHING tells "exists" from "inserted" by the row count,
	// without matching driver error codes.
	res, err := db.db.ExecContext(ctx, `INSERT INTO agents (`+agentColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING`,
		a.Name, a.Description, lists[0], lists[1], lists[2], now, now, a.Provider)
	if err != nil {
		return false, jarvisbot.Errorf(jarvisbot.EINTERNAL, "creating agent %q in %s: %w", a.Name, db.path, err)
	}
	n, err := db.affected(res, fmt.Sprintf("creating agent %q", a.Name))
	if err != nil {
		return false, err
	}
	return n == 1, nil
}

// UpdateAgent replaces the description and lists of an existing agent, or
// returns ENOTFOUND. CreatedAt is kept; UpdatedAt becomes now.
func (db *DB) UpdateAgent(ctx context.Context, a store.Agent) error {
	if err := store.ValidAgentDescription(a.Name, a.Description); err != nil {
		return err
	}
	lists, err := encodeLists(a)
	if err != nil {
		return err
	}
	res, err := db.db.ExecContext(ctx, `UPDATE agents
		SET description = ?, allow = ?, block = ?, focus = ?, updated_at = ?, provider = ?
		WHERE name = ?`,
		a.Description, lists[0], lists[1], lists[2], formatTime(db.now()), a.Provider, a.Name)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "updating agent %q in %s: %w", a.Name, db.path, err)
	}
	return db.affectedOne(res, "updating", a.Name)
}

// DeleteAgent removes the named agent, or returns ENOTFOUND.
func (db *DB) DeleteAgent(ctx context.Context, name string) error {
	res, err := db.db.ExecContext(ctx, `DELETE FROM agents WHERE name = ?`, name)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "deleting agent %q in %s: %w", name, db.path, err)
	}
	return db.affectedOne(res, "deleting", name)
}

func (db *DB) affectedOne(res sql.Result, verb, name string) error {
	n, err := db.affected(res, fmt.Sprintf("%s agent %q", verb, name))
	if err != nil {
		return err
	}
	if n == 0 {
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "agent %q does not exist", name)
	}
	return nil
}

// encodeLists returns allow, block and focus as JSON arrays; nil is "[]" so
// the column never holds null.
func encodeLists(a store.Agent) ([3]string, error) {
	var out [3]string
	for i, l := range [][]string{a.Allow, a.Block, a.Focus} {
		if l == nil {
			l = []string{}
		}
		b, err := json.Marshal(l)
		if err != nil {
			return out, jarvisbot.Errorf(jarvisbot.EINTERNAL, "encoding the lists of agent %q: %w", a.Name, err)
		}
		out[i] = string(b)
	}
	return out, nil
}

type scanner interface{ Scan(dest ...any) error }

// queryAll runs q and reads every row with scan; doing names the query in
// errors ("listing MCP servers").
func queryAll[T any](ctx context.Context, db *DB, doing string, scan func(scanner) (T, error), q string, args ...any) ([]T, error) {
	rows, err := db.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "%s in %s: %w", doing, db.path, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "%s in %s: %w", doing, db.path, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "%s in %s: %w", doing, db.path, err)
	}
	return out, nil
}

func scanAgent(s scanner) (store.Agent, error) {
	var (
		a                   store.Agent
		allow, block, focus string
		created, updated    string
	)
	if err := s.Scan(&a.Name, &a.Description, &allow, &block, &focus, &created, &updated, &a.Provider); err != nil {
		return a, err
	}
	for _, f := range []struct {
		col string
		src string
		dst *[]string
	}{{"allow", allow, &a.Allow}, {"block", block, &a.Block}, {"focus", focus, &a.Focus}} {
		if err := json.Unmarshal([]byte(f.src), f.dst); err != nil {
			return a, fmt.Errorf("agent %q has a damaged %s column: %w", a.Name, f.col, err)
		}
		if len(*f.dst) == 0 {
			*f.dst = nil // one form for "none", whatever was stored
		}
	}
	var err error
	if a.CreatedAt, err = parseTime(created); err != nil {
		return a, fmt.Errorf("agent %q: created_at: %w", a.Name, err)
	}
	if a.UpdatedAt, err = parseTime(updated); err != nil {
		return a, fmt.Errorf("agent %q: updated_at: %w", a.Name, err)
	}
	return a, nil
}
