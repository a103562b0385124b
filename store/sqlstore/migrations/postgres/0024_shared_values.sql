-- Values every process on this store must agree on (ST2).
CREATE TABLE shared_values (
	name       TEXT PRIMARY KEY,
	value      TEXT NOT NULL,
	created_at TEXT NOT NULL
);
