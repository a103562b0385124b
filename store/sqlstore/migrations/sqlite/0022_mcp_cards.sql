-- The owner's usage card of an MCP server (C5), edited on the dashboard:
-- the words that point at it, replacing the card derived from its tools
-- or its plugin's manual. A card set in the config (mcp.NAME.card) wins
-- over this one. It goes with its server.
CREATE TABLE mcp_cards (
	server     TEXT PRIMARY KEY REFERENCES mcp_servers (name) ON DELETE CASCADE,
	words      TEXT NOT NULL CHECK (json_valid(words) AND json_type(words) = 'array'),
	updated_at TEXT NOT NULL
) STRICT;
