-- Installed store plugins (P2) and where a skill came from (S6, S7).
CREATE TABLE plugins (
	name         TEXT PRIMARY KEY,
	state        TEXT NOT NULL CHECK (state IN ('installed', 'connected', 'needs-attention')),
	installed_at TEXT NOT NULL,
	updated_at   TEXT NOT NULL
);

CREATE TABLE skill_records (
	skill        TEXT PRIMARY KEY,
	origin       TEXT NOT NULL CHECK (origin IN ('imported', 'promoted')),
	source       TEXT NOT NULL DEFAULT '',
	dropped      TEXT NOT NULL DEFAULT '[]' CHECK (dropped::jsonb IS NOT NULL),
	recorded_at  TEXT NOT NULL
);
