package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

var (
	_ store.MCPServers      = (*DB)(nil)
	_ store.MCPInstructions = (*DB)(nil)
)

const mcpColumns = `name, transport, command, args, env, cwd, url, headers, timeout_ms, trusted, enabled, plugin, tools, secrets, instructions, created_at, updated_at`

// AddMCPServer records a new server.
func (db *DB) AddMCPServer(ctx context.Context, s store.MCPServer) error {
	return db.AddMCPServers(ctx, []store.MCPServer{s})
}

// AddMCPServers records every server in one transaction: a name taken
// (already, or twice in list) adds none of them.
func (db *DB) AddMCPServers(ctx context.Context, list []store.MCPServer) error {
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "adding MCP servers to %s: %w", db.path, err)
	}
	defer tx.Rollback() // no-op after Commit
	now := formatTime(db.now())
	for _, s := range list {
		if err := store.ValidServerName(s.Name); err != nil {
			return err
		}
		var cols [4][]byte
		for i, v := range []any{nonNil(s.Args), nonNilMap(s.Env), nonNilMap(s.Headers), nonNil(s.Secrets)} {
			if cols[i], err = json.Marshal(v); err != nil {
				return fmt.Errorf("encode MCP server %s: %w", s.Name, err)
			}
		}
		tools := s.Tools
		if tools == "" {
			tools = "[]"
		}
		if !json.Valid([]byte(tools)) {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "tools of MCP server %s are not JSON", s.Name)
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO mcp_servers (`+mcpColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING`,
			s.Name, s.Transport, s.Command, string(cols[0]), string(cols[1]), s.Cwd, s.URL, string(cols[2]),
			s.Timeout.Milliseconds(), boolInt(s.Trusted), boolInt(s.Enabled), s.Plugin, tools, string(cols[3]), s.Instructions, now, now)
		if err != nil {
			return jarvisbot.Errorf(jarvisbot.EINTERNAL, "adding MCP server %s to %s: %w", s.Name, db.path, err)
		}
		n, err := db.affected(res, "adding MCP server "+s.Name)
		if err != nil {
			return err
		}
		if n == 0 {
			return jarvisbot.Errorf(jarvisbot.ECONFLICT, "an MCP server named %s exists already: remove it first or choose another name", s.Name)
		}
	}
	if err := tx.Commit(); err != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "adding MCP servers to %s: %w", db.path, err)
	}
	return nil
}

// MCPServer returns one server.
func (db *DB) MCPServer(ctx context.Context, name string) (store.MCPServer, error) {
	s, err := scanMCP(db.db.QueryRowContext(ctx, `SELECT `+mcpColumns+` FROM mcp_servers WHERE name = ?`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return s, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no MCP server named %s (see jarvisbot mcp list)", name)
	}
	if err != nil {
		return s, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading MCP server %s from %s: %w", name, db.path, err)
	}
	return s, nil
}

// MCPServers returns every server sorted by name.
func (db *DB) MCPServers(ctx context.Context) ([]store.MCPServer, error) {
	return queryAll(ctx, db, "listing MCP servers", scanMCP, `SELECT `+mcpColumns+` FROM mcp_servers ORDER BY name`)
}

// scanMCP reads one row. A column that does not decode (a hand edit, an
// older or damaged file) fails only that server: it comes back with a
// Problem and switched off, so that it can still be listed and removed.
// The message never quotes the column, which may hold a secret.
func scanMCP(r scanner) (store.MCPServer, error) {
	var s store.MCPServer
	var args, env, headers, tools, secrets, created, updated string
	var timeout int64
	var trusted, enabled int
	if err := r.Scan(&s.Name, &s.Transport, &s.Command, &args, &env, &s.Cwd, &s.URL, &headers, &timeout, &trusted, &enabled, &s.Plugin, &tools, &secrets, &s.Instructions, &created, &updated); err != nil {
		return s, err
	}
	var problems []string
	for _, f := range []struct {
		what, raw string
		dst       any
	}{{"arguments are not a list of strings", args, &s.Args}, {"environment is not an object of strings", env, &s.Env},
		{"headers are not an object of strings", headers, &s.Headers}, {"secret names are not a list of strings", secrets, &s.Secrets}} {
		if err := json.Unmarshal([]byte(f.raw), f.dst); err != nil {
			problems = append(problems, "its stored "+f.what)
		}
	}
	if !json.Valid([]byte(tools)) {
		problems = append(problems, "its cached tool list is not JSON")
		tools = "[]"
	}
	s.Timeout = time.Duration(timeout) * time.Millisecond
	s.Trusted, s.Enabled = trusted == 1, enabled == 1
	// Kept as the string the driver returns: a copy into bytes would
	// double what every start allocates for the lists (~250 KB for 211
	// tools), in spans of their own, and leave them resident.
	s.Tools = tools
	// A bad time harms nothing; it reads as unknown (zero).
	s.CreatedAt, _ = parseTime(created)
	s.UpdatedAt, _ = parseTime(updated)
	if len(problems) > 0 {
		s.Problem = strings.Join(problems, "; ")
		s.Enabled = false
	}
	return s, nil
}

// SetMCPServerEnabled switches a server on or off.
func (db *DB) SetMCPServerEnabled(ctx context.Context, name string, enabled bool) error {
	return db.updateMCP(ctx, name, `enabled = ?`, boolInt(enabled))
}

// SetMCPServerTools caches a server's tool list.
func (db *DB) SetMCPServerTools(ctx context.Context, name string, tools []byte) error {
	if !json.Valid(tools) {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "tools of MCP server %s are not JSON", name)
	}
	return db.updateMCP(ctx, name, `tools = ?`, string(tools))
}

// SetMCPServerInstructions records what a server said at initialize.
func (db *DB) SetMCPServerInstructions(ctx context.Context, name, text string) error {
	return db.updateMCP(ctx, name, `instructions = ?`, text)
}

func (db *DB) updateMCP(ctx context.Context, name, set string, v any) error {
	res, err := db.db.ExecContext(ctx, `UPDATE mcp_servers SET `+set+`, updated_at = ? WHERE name = ?`, v, formatTime(db.now()), name)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "changing MCP server %s in %s: %w", name, db.path, err)
	}
	n, err := db.affected(res, "changing MCP server "+name)
	if err != nil {
		return err
	}
	if n == 0 {
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no MCP server named %s (see jarvisbot mcp list)", name)
	}
	return nil
}

// RemoveMCPServer forgets a server.
func (db *DB) RemoveMCPServer(ctx context.Context, name string) error {
	res, err := db.db.ExecContext(ctx, `DELETE FROM mcp_servers WHERE name = ?`, name)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "removing MCP server %s from %s: %w", name, db.path, err)
	}
	n, err := db.affected(res, "removing MCP server "+name)
	if err != nil {
		return err
	}
	if n == 0 {
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no MCP server named %s (see jarvisbot mcp list)", name)
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
