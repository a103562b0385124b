-- Agents (A1). Allow, block and focus are JSON arrays of capability ids or
-- patterns: they are always read and written whole, so a side table would
-- only add joins. Times are RFC 3339 UTC text so they sort and read plainly.
CREATE TABLE agents (
	name        TEXT PRIMARY KEY,
	description TEXT NOT NULL DEFAULT '',
	allow       TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(allow)),
	block       TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(block)),
	focus       TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(focus)),
	created_at  TEXT NOT NULL,
	updated_at  TEXT NOT NULL
) STRICT;
