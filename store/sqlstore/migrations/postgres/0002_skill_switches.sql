-- Per-skill on/off switches (S5); booleans are integers 0/1 as in SQLite.
CREATE TABLE skill_switches (
	skill      TEXT PRIMARY KEY,
	enabled    INTEGER NOT NULL CHECK (enabled IN (0, 1)),
	updated_at TEXT NOT NULL
);
