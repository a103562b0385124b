-- A learned word says which turn taught it (C9): chat is the conversation
-- of the last turn that taught it, beside last_at, its time; '' for words
-- learned before this was kept.
ALTER TABLE learned_words ADD COLUMN chat TEXT NOT NULL DEFAULT '';
