-- Whether every agent is paused (M4 pause_all), by whom and since when:
-- one row at most, kept across restarts so a paused jarvisbot stays
-- paused until someone resumes it.
CREATE TABLE pause (
	id        INTEGER PRIMARY KEY CHECK (id = 1),
	paused_by TEXT NOT NULL,
	paused_at TEXT NOT NULL
) STRICT;
