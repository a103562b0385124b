-- Budgets (A5): the owner's limits set on the dashboard (they win over the
-- config's), the buttons offered when a limit was reached (decided once),
-- and the notices sent, so a restart repeats none.
CREATE TABLE budget_limits (
	agent  TEXT NOT NULL,
	period TEXT NOT NULL,
	usd    DOUBLE PRECISION NOT NULL DEFAULT 0,
	tokens BIGINT NOT NULL DEFAULT 0,
	set_at TEXT NOT NULL,
	PRIMARY KEY (agent, period)
);
CREATE TABLE budget_offers (
	id           TEXT PRIMARY KEY,
	agent        TEXT NOT NULL,
	period       TEXT NOT NULL,
	start        TEXT NOT NULL,
	stopped      TEXT NOT NULL,
	state        TEXT NOT NULL DEFAULT 'open',
	factor       DOUBLE PRECISION NOT NULL DEFAULT 0,
	turn_taken   BIGINT NOT NULL DEFAULT 0,
	decided_by   TEXT NOT NULL DEFAULT '',
	created_at   TEXT NOT NULL,
	decided_at   TEXT NOT NULL DEFAULT ''
);
CREATE INDEX budget_offers_start ON budget_offers (start);
CREATE TABLE budget_notices (
	key TEXT PRIMARY KEY,
	at  TEXT NOT NULL
);

-- A scheduled run a budget stopped is recorded as 'over budget'.
ALTER TABLE schedule_runs DROP CONSTRAINT schedule_runs_outcome_check;
ALTER TABLE schedule_runs ADD CONSTRAINT schedule_runs_outcome_check
	CHECK (outcome IN ('running', 'ok', 'failed', 'skipped', 'not-run', 'interrupted', 'over budget'));
