-- Budgets (A5): the owner's limits set on the dashboard (they win over the
-- config's), the buttons offered when a limit was reached (decided once),
-- and the notices sent, so a restart repeats none.
CREATE TABLE budget_limits (
	agent  TEXT NOT NULL,
	period TEXT NOT NULL,
	usd    REAL NOT NULL DEFAULT 0,
	tokens INTEGER NOT NULL DEFAULT 0,
	set_at TEXT NOT NULL,
	PRIMARY KEY (agent, period)
) STRICT;
CREATE TABLE budget_offers (
	id           TEXT PRIMARY KEY,
	agent        TEXT NOT NULL,
	period       TEXT NOT NULL,
	start        TEXT NOT NULL,
	stopped      TEXT NOT NULL,
	state        TEXT NOT NULL DEFAULT 'open',
	factor       REAL NOT NULL DEFAULT 0,
	turn_taken   INTEGER NOT NULL DEFAULT 0,
	decided_by   TEXT NOT NULL DEFAULT '',
	created_at   TEXT NOT NULL,
	decided_at   TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX budget_offers_start ON budget_offers (start);
CREATE TABLE budget_notices (
	key TEXT PRIMARY KEY,
	at  TEXT NOT NULL
) STRICT;

-- A scheduled run a budget stopped is recorded as 'over budget'. SQLite
-- cannot change a CHECK constraint in place: the table is rebuilt.
CREATE TABLE schedule_runs_next (
	id             INTEGER PRIMARY KEY AUTOINCREMENT,
	skill          TEXT NOT NULL,
	due_at         TEXT NOT NULL,
	started_at     TEXT NOT NULL DEFAULT '',
	finished_at    TEXT NOT NULL DEFAULT '',
	outcome        TEXT NOT NULL CHECK (outcome IN ('running', 'ok', 'failed', 'skipped', 'not-run', 'interrupted', 'over budget')),
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
