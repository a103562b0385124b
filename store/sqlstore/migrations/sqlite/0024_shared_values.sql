-- Values every process on this store must agree on (ST2), such as the salt
-- the Telegram webhook's secret token is derived from. Not secrets on their
-- own: the keyring holds the secret they are combined with.
CREATE TABLE shared_values (
	name       TEXT PRIMARY KEY,
	value      TEXT NOT NULL,
	created_at TEXT NOT NULL
) STRICT;
