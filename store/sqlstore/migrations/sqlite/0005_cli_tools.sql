-- Connected command-line tools (P5). env values may be ${NAME} references
-- to keyring secrets, never secrets.
CREATE TABLE cli_tools (
	name        TEXT PRIMARY KEY,
	path        TEXT NOT NULL,
	env         TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(env)),
	timeout_ms  INTEGER NOT NULL DEFAULT 0 CHECK (timeout_ms >= 0),
	description TEXT NOT NULL DEFAULT '',
	created_at  TEXT NOT NULL
) STRICT;
