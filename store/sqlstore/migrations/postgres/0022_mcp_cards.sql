-- The owner's usage card of an MCP server (C5); it goes with its server.
CREATE TABLE mcp_cards (
	server     TEXT PRIMARY KEY REFERENCES mcp_servers (name) ON DELETE CASCADE,
	words      TEXT NOT NULL CHECK (jsonb_typeof(words::jsonb) = 'array'),
	updated_at TEXT NOT NULL
);
