-- MCP servers the owner added (M1). Env and headers hold ${NAME}
-- references to keyring secrets, never the secrets themselves.
CREATE TABLE mcp_servers (
	name       TEXT PRIMARY KEY,
	transport  TEXT NOT NULL CHECK (transport IN ('stdio', 'streamable-http', 'sse')),
	command    TEXT NOT NULL DEFAULT '',
	args       TEXT NOT NULL DEFAULT '[]' CHECK (args::jsonb IS NOT NULL),
	env        TEXT NOT NULL DEFAULT '{}' CHECK (env::jsonb IS NOT NULL),
	cwd        TEXT NOT NULL DEFAULT '',
	url        TEXT NOT NULL DEFAULT '',
	headers    TEXT NOT NULL DEFAULT '{}' CHECK (headers::jsonb IS NOT NULL),
	timeout_ms BIGINT NOT NULL DEFAULT 0 CHECK (timeout_ms >= 0),
	trusted    INTEGER NOT NULL DEFAULT 0 CHECK (trusted IN (0, 1)),
	enabled    INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
	plugin     TEXT NOT NULL DEFAULT '',
	tools      TEXT NOT NULL DEFAULT '[]' CHECK (tools::jsonb IS NOT NULL),
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
