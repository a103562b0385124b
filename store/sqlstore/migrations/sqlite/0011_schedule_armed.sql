-- SC1: a scheduled time is caught up after downtime only when the job was
-- armed before it, on the same schedule: a fresh install or a skill added
-- today never catches up a time that passed before the scheduler knew it.
-- A changed schedule or time zone, or a skill switched off and on again,
-- is armed anew. Installs from before this step have no record, so their
-- first start after it catches nothing up.
CREATE TABLE schedule_armed (
	skill    TEXT PRIMARY KEY,
	spec     TEXT NOT NULL,
	zone     TEXT NOT NULL DEFAULT '',
	armed_at TEXT NOT NULL
) STRICT;

-- The owner was told that the skill cannot run (no model is configured);
-- not repeated until a run starts.
ALTER TABLE schedule_state ADD COLUMN told_not_run INTEGER NOT NULL DEFAULT 0 CHECK (told_not_run IN (0, 1));

-- A run that could not start (no model) is recorded as 'not-run', one that
-- jarvisbot stopped at its shutdown deadline as 'interrupted'. SQLite
-- cannot change a CHECK constraint in place: the table is rebuilt.
CREATE TABLE schedule_runs_next (
	id             INTEGER PRIMARY KEY AUTOINCREMENT,
	skill          TEXT NOT NULL,
	due_at         TEXT NOT NULL,
	started_at     TEXT NOT NULL DEFAULT '',
	finished_at    TEXT NOT NULL DEFAULT '',
	outcome        TEXT NOT NULL CHECK (outcome IN ('running', 'ok', 'failed', 'skipped', 'not-run', 'interrupted')),
	error          TEXT NOT NULL DEFAULT '',
	report         TEXT NOT NULL DEFAULT '',
	chat           TEXT NOT NULL DEFAULT '',
	delivery       TEXT NOT NULL DEFAULT 'pending' CHECK (delivery IN ('pending', 'sent', 'failed', 'none')),
	delivery_error TEXT NOT NULL DEFAULT '',
	attempts       INTEGER NOT NULL DEFAULT 0,
	UNIQUE (skill, due_at)
) STRICT;
INSERT INTO schedule_runs_next (id, skill, due_at, started_at, finished_at, outcome, error, report, chat, delivery, delivery_error, attempts)
	SELECT id, skill, due_at, started_at, finished_at, outcome, error, report, chat, delivery, delivery_error, attempts FROM schedule_runs;
DROP TABLE schedule_runs;
ALTER TABLE schedule_runs_next RENAME TO schedule_runs;
