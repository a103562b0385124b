-- The session a delegate (a coding CLI that is an agent's model, M5) left
-- in a chat, so that the next turn there resumes its conversation.
CREATE TABLE delegate_sessions (
	agent      TEXT NOT NULL,
	chat       TEXT NOT NULL,
	session    TEXT NOT NULL,
	updated_at TEXT NOT NULL,
	PRIMARY KEY (agent, chat)
) STRICT;
