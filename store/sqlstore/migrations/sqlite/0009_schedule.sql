-- Scheduled skills (SC1). A run is recorded before it fires, so a restart
-- never repeats one; run status and delivery status are separate.
CREATE TABLE schedule_runs (
	id             INTEGER PRIMARY KEY AUTOINCREMENT,
	skill          TEXT NOT NULL,
	due_at         TEXT NOT NULL,
	started_at     TEXT NOT NULL DEFAULT '',
	finished_at    TEXT NOT NULL DEFAULT '',
	outcome        TEXT NOT NULL CHECK (outcome IN ('running', 'ok', 'failed', 'skipped')),
	error          TEXT NOT NULL DEFAULT '',
	report         TEXT NOT NULL DEFAULT '',
	chat           TEXT NOT NULL DEFAULT '',
	delivery       TEXT NOT NULL DEFAULT 'pending' CHECK (delivery IN ('pending', 'sent', 'failed', 'none')),
	delivery_error TEXT NOT NULL DEFAULT '',
	attempts       INTEGER NOT NULL DEFAULT 0,
	UNIQUE (skill, due_at)
) STRICT;

-- Per skill: paused by the owner, and the failure streak for the alert.
CREATE TABLE schedule_state (
	skill    TEXT PRIMARY KEY,
	paused   INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
	failures INTEGER NOT NULL DEFAULT 0,
	alerted  INTEGER NOT NULL DEFAULT 0 CHECK (alerted IN (0, 1))
) STRICT;
