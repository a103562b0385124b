-- What an MCP server said at initialize (its `instructions`): a server
-- added by hand has no manual, and its derived usage card reads them, so
-- route explains a turn from the stored server as the live one routes it.
ALTER TABLE mcp_servers ADD COLUMN instructions TEXT NOT NULL DEFAULT '';

-- The owner's preferred plugins and MCP servers: when two of the same kind
-- match a request equally (Spotify and YouTube Music), the one marked last
-- wins the tie; without a mark, the one used last does.
CREATE TABLE preferences (
	kind         TEXT NOT NULL CHECK (kind IN ('plugin', 'mcp')),
	name         TEXT NOT NULL,
	preferred_at TEXT NOT NULL,
	PRIMARY KEY (kind, name)
) STRICT;
