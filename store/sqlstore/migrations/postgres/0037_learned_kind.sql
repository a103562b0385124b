-- Learned words are kept for skills too (C9): kind says whether name is a
-- server the gate offers or a skill the scorer ranks; ignored counts the
-- turns since the word's last use whose offer, brought by it, the model
-- left unused. PostgreSQL changes the key in place where SQLite rebuilds
-- the table.
ALTER TABLE learned_words RENAME COLUMN server TO name;
ALTER TABLE learned_words ADD COLUMN kind TEXT NOT NULL DEFAULT 'server' CHECK (kind IN ('server', 'skill'));
ALTER TABLE learned_words ALTER COLUMN kind DROP DEFAULT;
ALTER TABLE learned_words ADD COLUMN ignored BIGINT NOT NULL DEFAULT 0;
ALTER TABLE learned_words DROP CONSTRAINT learned_words_pkey;
ALTER TABLE learned_words ADD PRIMARY KEY (kind, name, word);
