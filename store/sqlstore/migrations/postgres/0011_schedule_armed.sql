-- SC1: when each schedule was armed; the owner told a skill cannot run;
-- the outcomes 'not-run' and 'interrupted'. PostgreSQL changes the CHECK
-- in place where SQLite rebuilds the table.
CREATE TABLE schedule_armed (
	skill    TEXT PRIMARY KEY,
	spec     TEXT NOT NULL,
	zone     TEXT NOT NULL DEFAULT '',
	armed_at TEXT NOT NULL
);

ALTER TABLE schedule_state ADD COLUMN told_not_run INTEGER NOT NULL DEFAULT 0 CHECK (told_not_run IN (0, 1));

ALTER TABLE schedule_runs DROP CONSTRAINT schedule_runs_outcome_check;
ALTER TABLE schedule_runs ADD CONSTRAINT schedule_runs_outcome_check
	CHECK (outcome IN ('running', 'ok', 'failed', 'skipped', 'not-run', 'interrupted'));
