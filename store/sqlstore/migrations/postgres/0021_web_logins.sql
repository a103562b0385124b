-- The dashboard's one-time sign-in links and sessions (W1): hashes only.
CREATE TABLE web_links (
	hash       TEXT PRIMARY KEY CHECK (hash ~ '^[0-9a-f]{64}$'),
	expires_at TEXT NOT NULL,
	used_at    TEXT NOT NULL DEFAULT ''
);

CREATE TABLE web_sessions (
	hash       TEXT PRIMARY KEY CHECK (hash ~ '^[0-9a-f]{64}$'),
	created_at TEXT NOT NULL,
	expires_at TEXT NOT NULL
);
