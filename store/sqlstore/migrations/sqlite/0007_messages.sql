-- Conversations (A2): every message, tool call, result and decision of a
-- chat, in order. content is the provider-neutral message as JSON.
CREATE TABLE messages (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	chat       TEXT NOT NULL,
	agent      TEXT NOT NULL,
	role       TEXT NOT NULL,
	content    TEXT NOT NULL CHECK (json_valid(content)),
	created_at TEXT NOT NULL
) STRICT;
CREATE INDEX messages_chat ON messages (chat, id);
