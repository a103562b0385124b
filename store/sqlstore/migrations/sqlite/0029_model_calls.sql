-- Every model call (A5): who caused it, what the provider reported, and the
-- turn's tool figures (what the gate saved). No text of the conversation.
CREATE TABLE model_calls (
	id                 INTEGER PRIMARY KEY AUTOINCREMENT,
	at                 TEXT NOT NULL,
	agent              TEXT NOT NULL,
	source             TEXT NOT NULL DEFAULT 'chat',
	chat               TEXT NOT NULL DEFAULT '',
	provider           TEXT NOT NULL,
	model              TEXT NOT NULL,
	input_tokens       INTEGER NOT NULL DEFAULT 0,
	output_tokens      INTEGER NOT NULL DEFAULT 0,
	cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
	cache_write_tokens INTEGER NOT NULL DEFAULT 0,
	duration_ms        INTEGER NOT NULL DEFAULT 0,
	outcome            TEXT NOT NULL,
	tools_sent         INTEGER NOT NULL DEFAULT 0,
	tool_tokens        INTEGER NOT NULL DEFAULT 0,
	catalog_tokens     INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX model_calls_at ON model_calls (at);
