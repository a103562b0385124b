-- Jobs apps post over MCP without naming who does them (M4): the agent
-- chosen with why, the chat its turns run in, and where it stands, so a
-- restart picks up what was queued, running or waiting for approval.
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
	finished_at TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX jobs_app_created ON jobs (app, created_at);
CREATE INDEX jobs_unfinished ON jobs (state, created_at) WHERE state IN ('queued', 'running', 'waiting_approval');
