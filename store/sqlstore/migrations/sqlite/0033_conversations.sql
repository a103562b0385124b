-- Conversations: each agent has its own in each chat. /new starts a fresh
-- one, whose turns then see only the messages after it (the older ones
-- stay stored and searchable); a long one keeps a running summary of the
-- turns that no longer fit the window, covering its messages up to
-- covered_id. Without a row, an agent's conversation in a chat runs from
-- its first message there.
CREATE TABLE conversations (
	chat          TEXT NOT NULL,
	agent         TEXT NOT NULL,
	after_id      INTEGER NOT NULL,
	begun_at      TEXT NOT NULL,
	summary       TEXT NOT NULL DEFAULT '',
	covered_id    INTEGER NOT NULL DEFAULT 0,
	summarized_at TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (chat, agent, after_id)
) STRICT;
