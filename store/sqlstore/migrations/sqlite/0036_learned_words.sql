-- Words the gate learned for a server from the owner's turns: a miss the
-- model recovered and then used. word is the stem the gate indexes,
-- label the word as the owner wrote it; turns counts the turns that
-- taught it.
CREATE TABLE learned_words (
	server     TEXT NOT NULL,
	word       TEXT NOT NULL,
	label      TEXT NOT NULL,
	turns      INTEGER NOT NULL DEFAULT 1,
	learned_at TEXT NOT NULL,
	last_at    TEXT NOT NULL,
	PRIMARY KEY (server, word)
) STRICT;
