-- Whether every agent is paused (M4 pause_all): one row at most.
CREATE TABLE pause (
	id        INTEGER PRIMARY KEY CHECK (id = 1),
	paused_by TEXT NOT NULL,
	paused_at TEXT NOT NULL
);
