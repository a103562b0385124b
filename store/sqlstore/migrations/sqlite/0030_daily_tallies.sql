-- Daily counts of what the runtime reports and keeps nothing of (W2): turns
-- by outcome, tool calls by tier. One row per day, agent, kind and key,
-- added to as events happen.
CREATE TABLE daily_tallies (
	day   TEXT NOT NULL,
	agent TEXT NOT NULL DEFAULT '',
	kind  TEXT NOT NULL,
	label TEXT NOT NULL,
	count INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (day, agent, kind, label)
) STRICT;
