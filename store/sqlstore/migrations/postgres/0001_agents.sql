-- Agents (A1), the PostgreSQL twin of sqlite/0001: the same columns, text
-- times in the same RFC 3339 form so both stores read them alike. A JSON
-- column is checked by casting it: text that is not JSON fails the cast.
CREATE TABLE agents (
	name        TEXT PRIMARY KEY,
	description TEXT NOT NULL DEFAULT '',
	allow       TEXT NOT NULL DEFAULT '[]' CHECK (allow::jsonb IS NOT NULL),
	block       TEXT NOT NULL DEFAULT '[]' CHECK (block::jsonb IS NOT NULL),
	focus       TEXT NOT NULL DEFAULT '[]' CHECK (focus::jsonb IS NOT NULL),
	created_at  TEXT NOT NULL,
	updated_at  TEXT NOT NULL
);
