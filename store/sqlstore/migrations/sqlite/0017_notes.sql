-- Notes apps leave for an agent (agent_message, M4): read once, at the
-- agent's next turn, then kept as read.
CREATE TABLE agent_notes (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	agent      TEXT NOT NULL,
	sender     TEXT NOT NULL DEFAULT '',
	text       TEXT NOT NULL,
	created_at TEXT NOT NULL,
	read_at    TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX agent_notes_unread ON agent_notes (agent, id) WHERE read_at = '';
