-- The model an agent runs on when the owner chose one for it (A3, M5).
ALTER TABLE agents ADD COLUMN provider TEXT NOT NULL DEFAULT '';
