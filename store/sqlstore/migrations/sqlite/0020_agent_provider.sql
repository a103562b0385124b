-- The model an agent runs on when the owner chose one for it (A3, M5):
-- "" for the installation's provider, or a provider name such as
-- claude-code or codex (an agent on a coding CLI's subscription).
ALTER TABLE agents ADD COLUMN provider TEXT NOT NULL DEFAULT '';
