-- The dashboard's one-time sign-in links and the sessions they become
-- (W1). Only the SHA-256 (hex) of a link's or session's token is kept.
-- Expired rows are removed when new ones are added.
CREATE TABLE web_links (
	hash       TEXT PRIMARY KEY CHECK (length(hash) = 64 AND hash NOT GLOB '*[^0-9a-f]*'),
	expires_at TEXT NOT NULL,
	used_at    TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE TABLE web_sessions (
	hash       TEXT PRIMARY KEY CHECK (length(hash) = 64 AND hash NOT GLOB '*[^0-9a-f]*'),
	created_at TEXT NOT NULL,
	expires_at TEXT NOT NULL
) STRICT;
