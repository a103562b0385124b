-- Per-skill on/off switches (S5). A skill with no row is in its default
-- state (shipped skills on, promoted drafts off); a row records the owner's
-- word, which wins. Skills themselves are files, so only the switch is here.
CREATE TABLE skill_switches (
	skill      TEXT PRIMARY KEY,
	enabled    INTEGER NOT NULL CHECK (enabled IN (0, 1)),
	updated_at TEXT NOT NULL
) STRICT;
