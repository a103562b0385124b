-- Approval requests for ask-tier tools (C2, CH2). The id is unguessable
-- (128 random bits) because it travels in button callback data. args holds
-- the call's arguments so an approved call runs exactly what was shown.
CREATE TABLE approvals (
	id          TEXT PRIMARY KEY,
	tool        TEXT NOT NULL,
	summary     TEXT NOT NULL,
	args        TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(args)),
	agent       TEXT NOT NULL,
	chat        TEXT NOT NULL DEFAULT '',
	state       TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'denied', 'expired')),
	always      INTEGER NOT NULL DEFAULT 0 CHECK (always IN (0, 1)),
	decided_by  TEXT NOT NULL DEFAULT '',
	created_at  TEXT NOT NULL,
	expires_at  TEXT NOT NULL,
	decided_at  TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX approvals_pending ON approvals (state, expires_at);

-- "Always for this tool": the owner's standing approval, until revoked.
CREATE TABLE approval_grants (
	tool       TEXT PRIMARY KEY,
	granted_by TEXT NOT NULL,
	granted_at TEXT NOT NULL
) STRICT;

-- The activity board: monitor-tier and approved calls, newest first.
CREATE TABLE activity (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	at          TEXT NOT NULL,
	agent       TEXT NOT NULL,
	tool        TEXT NOT NULL,
	tier        TEXT NOT NULL,
	args        TEXT NOT NULL DEFAULT '',
	outcome     TEXT NOT NULL,
	duration_ms INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX activity_at ON activity (at DESC);
