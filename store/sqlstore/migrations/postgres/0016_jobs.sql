-- Jobs apps post over MCP (M4). SQLite orders jobs added in the same
-- instant by its implicit rowid; PostgreSQL has none, so the twin has a
-- column of that name and the store's queries read the same on both.
CREATE TABLE jobs (
	id          TEXT PRIMARY KEY,
	app         TEXT NOT NULL,
	title       TEXT NOT NULL DEFAULT '',
	text        TEXT NOT NULL,
	agent       TEXT NOT NULL,
	why         TEXT NOT NULL DEFAULT '',
	chat        TEXT NOT NULL,
	state       TEXT NOT NULL CHECK (state IN ('queued', 'running', 'waiting_approval', 'done', 'failed', 'cancelled')),
	result      TEXT NOT NULL DEFAULT '',
	error       TEXT NOT NULL DEFAULT '',
	approval    TEXT NOT NULL DEFAULT '',
	tools       TEXT NOT NULL DEFAULT '[]',
	attempts    INTEGER NOT NULL DEFAULT 0,
	created_at  TEXT NOT NULL,
	started_at  TEXT NOT NULL DEFAULT '',
	finished_at TEXT NOT NULL DEFAULT '',
	rowid       BIGINT GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX jobs_app_created ON jobs (app, created_at);
CREATE INDEX jobs_unfinished ON jobs (state, created_at) WHERE state IN ('queued', 'running', 'waiting_approval');
