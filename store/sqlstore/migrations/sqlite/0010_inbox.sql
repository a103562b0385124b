-- Messages received and not yet answered (CH1): stored before the channel
-- confirms them (Telegram's offset), deleted when their turn is done, and
-- queued again at start, so a crash neither loses nor repeats a message.
CREATE TABLE inbox (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	chat        TEXT NOT NULL,
	user        TEXT NOT NULL,
	name        TEXT NOT NULL DEFAULT '',
	text        TEXT NOT NULL,
	received_at TEXT NOT NULL
) STRICT;
