-- MCP servers the owner added (M1). Env and headers may hold ${NAME}
-- references to keyring secrets, never the secrets themselves: the CLI
-- refuses values that look like credentials. tools caches the server's last
-- tools/list (JSON array) so that route can explain a turn without starting
-- every server.
CREATE TABLE mcp_servers (
	name       TEXT PRIMARY KEY,
	transport  TEXT NOT NULL CHECK (transport IN ('stdio', 'streamable-http', 'sse')),
	command    TEXT NOT NULL DEFAULT '',
	args       TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(args)),
	env        TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(env)),
	cwd        TEXT NOT NULL DEFAULT '',
	url        TEXT NOT NULL DEFAULT '',
	headers    TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(headers)),
	timeout_ms INTEGER NOT NULL DEFAULT 0 CHECK (timeout_ms >= 0),
	trusted    INTEGER NOT NULL DEFAULT 0 CHECK (trusted IN (0, 1)),
	enabled    INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
	plugin     TEXT NOT NULL DEFAULT '',
	tools      TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tools)),
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
) STRICT;
