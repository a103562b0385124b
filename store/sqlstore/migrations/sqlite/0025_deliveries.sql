-- Platform deliveries taken (ST2): Telegram redelivers an update it did not
-- see confirmed, and behind a balancer several replicas may each get one, so
-- each (platform, delivery id) is taken once. The row is written in the same
-- transaction as the message's inbox row, and outlives it for a while (the
-- dispatcher prunes it), so an update redelivered after its answer is not
-- answered again. Portable SQL: the PostgreSQL store runs the same.
CREATE TABLE deliveries (
	platform TEXT NOT NULL,
	id       TEXT NOT NULL,
	taken_at TEXT NOT NULL,
	PRIMARY KEY (platform, id)
);
CREATE INDEX deliveries_taken_at ON deliveries (taken_at);
