-- Owners paired through /pair CODE (CH1), besides those the config lists.
CREATE TABLE owners (
	user      TEXT PRIMARY KEY,
	paired_at TEXT NOT NULL
) STRICT;

-- Where each approval request was drawn, so that its message is edited
-- after the decision, also after a restart (CH2).
CREATE TABLE approval_messages (
	approval   TEXT NOT NULL,
	chat       TEXT NOT NULL,
	message_id TEXT NOT NULL,
	PRIMARY KEY (approval, chat)
) STRICT;

-- Replies that could not be delivered: kept, reported, retried.
CREATE TABLE outbox (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	chat       TEXT NOT NULL,
	text       TEXT NOT NULL,
	error      TEXT NOT NULL,
	created_at TEXT NOT NULL
) STRICT;
