-- Photos and documents (CH4) wait in the inbox with their bytes, as voice
-- notes do; file is NULL for a message without one.
ALTER TABLE inbox ADD COLUMN file BYTEA;
ALTER TABLE inbox ADD COLUMN file_mime TEXT NOT NULL DEFAULT '';
ALTER TABLE inbox ADD COLUMN file_name TEXT NOT NULL DEFAULT '';
ALTER TABLE inbox ADD COLUMN file_photo INTEGER NOT NULL DEFAULT 0;
