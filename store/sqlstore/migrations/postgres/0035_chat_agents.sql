-- The agent the owner switched a chat to with /agent NAME: it answers the
-- chat's messages from then on, over the config's binding, across
-- restarts, until switched again.
CREATE TABLE chat_agents (
	chat   TEXT PRIMARY KEY,
	agent  TEXT NOT NULL,
	set_at TEXT NOT NULL
);
