-- Installed store plugins (P2). The store itself ships in the binary; a row
-- says the owner installed one and in which state it is. Sign-ins live in
-- the keyring, never here.
CREATE TABLE plugins (
	name         TEXT PRIMARY KEY,
	state        TEXT NOT NULL CHECK (state IN ('installed', 'connected', 'needs-attention')),
	installed_at TEXT NOT NULL,
	updated_at   TEXT NOT NULL
) STRICT;

-- Where a skill of the owner's folder came from (S6, S7): an import keeps
-- the list of fields that were dropped, so the owner can see what was
-- ignored; a promoted skill remembers the agent that wrote it.
CREATE TABLE skill_records (
	skill        TEXT PRIMARY KEY,
	origin       TEXT NOT NULL CHECK (origin IN ('imported', 'promoted')),
	source       TEXT NOT NULL DEFAULT '',
	dropped      TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(dropped)),
	recorded_at  TEXT NOT NULL
) STRICT;
