-- Platform deliveries taken (ST2): each (platform, delivery id) once.
CREATE TABLE deliveries (
	platform TEXT NOT NULL,
	id       TEXT NOT NULL,
	taken_at TEXT NOT NULL,
	PRIMARY KEY (platform, id)
);
CREATE INDEX deliveries_taken_at ON deliveries (taken_at);
