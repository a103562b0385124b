-- Recall (A6): everything said, searchable. recall_docs holds one row per
-- message, wiki note or document the owner sent, with the text the
-- snippets are cut from;
-- recall_terms (FTS5) indexes their words as stems made in Go
-- (internal/words), so that English and German inflections meet and
-- PostgreSQL's index ranks the same terms.
CREATE TABLE recall_docs (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	kind       TEXT NOT NULL CHECK (kind IN ('message', 'note', 'file')),
	ref        TEXT NOT NULL,
	chat       TEXT NOT NULL DEFAULT '',
	agent      TEXT NOT NULL DEFAULT '',
	who        TEXT NOT NULL,
	text       TEXT NOT NULL,
	created_at TEXT NOT NULL,
	UNIQUE (kind, ref)
) STRICT;
CREATE INDEX recall_docs_chat ON recall_docs (chat, created_at);
CREATE INDEX recall_docs_at ON recall_docs (created_at);
CREATE VIRTUAL TABLE recall_terms USING fts5(terms, tokenize = 'unicode61 remove_diacritics 0');

-- The history written before this index is indexed once, in the
-- background, newest first: below is the message id the next batch
-- starts under (0 when done); total is what there was to do.
CREATE TABLE recall_progress (
	id         INTEGER PRIMARY KEY CHECK (id = 1),
	below      INTEGER NOT NULL,
	indexed    INTEGER NOT NULL DEFAULT 0,
	total      INTEGER NOT NULL,
	updated_at TEXT NOT NULL DEFAULT ''
) STRICT;
INSERT INTO recall_progress (id, below, total)
	SELECT 1, CASE WHEN count(*) = 0 THEN 0 ELSE max(id) + 1 END, count(*) FROM messages;
