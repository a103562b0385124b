-- Apps that use jarvisbot's MCP surface (M4), each with its own key. Only
-- the key's SHA-256 is kept (hex): the key is shown once when the app is
-- added. A revoked app stays listed with the time of its revocation, and
-- its name may be taken again by a new app: one live app per name.
CREATE TABLE apps (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	name         TEXT NOT NULL,
	scope        TEXT NOT NULL CHECK (scope IN ('read', 'work', 'full')),
	key_hash     TEXT NOT NULL UNIQUE CHECK (length(key_hash) = 64 AND key_hash NOT GLOB '*[^0-9a-f]*'),
	created_at   TEXT NOT NULL,
	last_used_at TEXT NOT NULL DEFAULT '',
	revoked_at   TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE UNIQUE INDEX apps_live_name ON apps (name) WHERE revoked_at = '';
