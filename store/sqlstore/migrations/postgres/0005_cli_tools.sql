-- Connected command-line tools (P5).
CREATE TABLE cli_tools (
	name        TEXT PRIMARY KEY,
	path        TEXT NOT NULL,
	env         TEXT NOT NULL DEFAULT '{}' CHECK (env::jsonb IS NOT NULL),
	timeout_ms  BIGINT NOT NULL DEFAULT 0 CHECK (timeout_ms >= 0),
	description TEXT NOT NULL DEFAULT '',
	created_at  TEXT NOT NULL
);
