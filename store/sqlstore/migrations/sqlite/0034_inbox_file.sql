-- Photos and documents (CH4) wait in the inbox with their bytes, as voice
-- notes do, so a turn stopped by a restart is answered with them. file is
-- NULL for a message without one. Portable SQL.
ALTER TABLE inbox ADD COLUMN file BLOB;
ALTER TABLE inbox ADD COLUMN file_mime TEXT NOT NULL DEFAULT '';
ALTER TABLE inbox ADD COLUMN file_name TEXT NOT NULL DEFAULT '';
ALTER TABLE inbox ADD COLUMN file_photo INTEGER NOT NULL DEFAULT 0;
