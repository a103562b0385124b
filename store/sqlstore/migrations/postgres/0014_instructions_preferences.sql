-- What an MCP server said at initialize, and the owner's preferred
-- plugins and servers (C5).
ALTER TABLE mcp_servers ADD COLUMN instructions TEXT NOT NULL DEFAULT '';

CREATE TABLE preferences (
	kind         TEXT NOT NULL CHECK (kind IN ('plugin', 'mcp')),
	name         TEXT NOT NULL,
	preferred_at TEXT NOT NULL,
	PRIMARY KEY (kind, name)
);
