-- Learned words are kept for skills too (C9): kind says whether name is a
-- server the gate offers or a skill the scorer ranks, so a skill and a
-- server of one name keep their own words. ignored counts the turns since
-- the word's last use whose offer, brought by it, the model left unused:
-- such a word weighs less, and is dropped after a few. SQLite cannot
-- change a primary key in place: the table is rebuilt.
CREATE TABLE learned_words_next (
	kind       TEXT NOT NULL CHECK (kind IN ('server', 'skill')),
	name       TEXT NOT NULL,
	word       TEXT NOT NULL,
	label      TEXT NOT NULL,
	turns      INTEGER NOT NULL DEFAULT 1,
	ignored    INTEGER NOT NULL DEFAULT 0,
	learned_at TEXT NOT NULL,
	last_at    TEXT NOT NULL,
	PRIMARY KEY (kind, name, word)
) STRICT;
INSERT INTO learned_words_next (kind, name, word, label, turns, ignored, learned_at, last_at)
	SELECT 'server', server, word, label, turns, 0, learned_at, last_at FROM learned_words;
DROP TABLE learned_words;
ALTER TABLE learned_words_next RENAME TO learned_words;
