-- The session a delegate left in a chat (M5).
CREATE TABLE delegate_sessions (
	agent      TEXT NOT NULL,
	chat       TEXT NOT NULL,
	session    TEXT NOT NULL,
	updated_at TEXT NOT NULL,
	PRIMARY KEY (agent, chat)
);
