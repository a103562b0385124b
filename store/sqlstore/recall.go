package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/excerpt"
	"github.com/jarvisbot/jarvisbot/internal/words"
	"github.com/jarvisbot/jarvisbot/store"
)

// Recall (A6) keeps one row per message or wiki note in recall_docs with
// its text, and the stems of its words in the engine's full-text index:
// FTS5's recall_terms on SQLite, the tsvector column terms on PostgreSQL.
// The stems are made here, in Go, by the tokenizer the gate uses, and the
// query goes through the same function, so "invoices" finds "invoice" and
// "Termine" finds "Termin" on both engines alike. Snippets are cut here
// too, from the stored text.

var _ store.Recall = (*DB)(nil)

// Bounds on what is kept of one thing said.
const (
	// maxRecallText is how much of a message or note is kept for
	// snippets; its words are indexed up to words.MaxTokens.
	maxRecallText = 16 << 10
	// maxToolSummary is how much of one tool result is indexed: its
	// short summary, not a fetched web page in full.
	maxToolSummary = 300
	// maxQueryTerms bounds the words of one search.
	maxQueryTerms = 32
)

// tokenizers are reused between calls; a Tokenizer is not safe for
// concurrent use.
var tokenizers = sync.Pool{New: func() any { return new(words.Tokenizer) }}

// recallTerms returns the stems of text's words joined by spaces: what the
// index holds of it.
func recallTerms(text string) string {
	z := tokenizers.Get().(*words.Tokenizer)
	defer tokenizers.Put(z)
	var b strings.Builder
	for _, t := range z.Tokenize(text) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t.Stem)
	}
	return b.String()
}

// queryTerms returns the distinct stems of a query's words without the
// function words ("what did I tell you about the landlord" asks for
// "tell" and "landlord").
func queryTerms(query string) []string {
	z := tokenizers.Get().(*words.Tokenizer)
	defer tokenizers.Put(z)
	lex := words.Default()
	var out []string
	seen := map[string]bool{}
	for _, t := range z.Tokenize(query) {
		if seen[t.Stem] || lex.Class(t.Stem) == words.Stop {
			continue
		}
		seen[t.Stem] = true
		out = append(out, t.Stem)
		if len(out) == maxQueryTerms {
			break
		}
	}
	return out
}

// recallDoc is one thing said, as the index keeps it.
type recallDoc struct {
	kind, ref, chat, agent, who, text string
	at                                time.Time
	// also are words indexed but not shown (a note's name).
	also string
}

// said returns who said a stored message and its text to index: the
// owner's or an agent's words, and a tool result's first words. A message
// with nothing to index (an agent's bare tool calls) gives "".
func said(role string, content []byte) (who, text string) {
	var m struct {
		Text        string `json:"text"`
		ToolResults []struct {
			Content string `json:"content"`
			IsError bool   `json:"is_error"`
		} `json:"tool_results"`
	}
	if json.Unmarshal(content, &m) != nil {
		return "", ""
	}
	var b strings.Builder
	b.WriteString(strings.TrimSpace(m.Text))
	for _, r := range m.ToolResults {
		if r.IsError {
			continue // a failure says nothing the owner will look for
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(cut(strings.TrimSpace(r.Content), maxToolSummary))
	}
	text = strings.TrimSpace(b.String())
	switch {
	case text == "":
		return "", ""
	case role == "assistant":
		return store.SaidByAgent, text
	case strings.TrimSpace(m.Text) == "":
		return store.SaidByTool, text
	case role == "user":
		return store.SaidByOwner, text
	}
	return role, text
}

// cut returns s up to n bytes, not splitting a character.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// execQuerier is what indexing needs of a transaction or the pool.
type execQuerier interface {
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

// index adds d to the index or replaces what it held under d's kind and
// ref.
func (db *DB) index(ctx context.Context, q execQuerier, d recallDoc) error {
	text := strings.ReplaceAll(cut(d.text, maxRecallText), "\x00", " ") // PostgreSQL's text holds no NUL
	terms := recallTerms(d.also + "\n" + d.text)
	at := formatTime(d.at)
	if db.dialect == postgresDialect {
		_, err := q.ExecContext(ctx, `INSERT INTO recall_docs (kind, ref, chat, agent, who, text, created_at, terms)
			VALUES (?, ?, ?, ?, ?, ?, ?, to_tsvector('simple', ?))
			ON CONFLICT (kind, ref) DO UPDATE SET chat = excluded.chat, agent = excluded.agent, who = excluded.who,
				text = excluded.text, created_at = excluded.created_at, terms = excluded.terms`,
			d.kind, d.ref, d.chat, d.agent, d.who, text, at, terms)
		return err
	}
	var id int64
	if err := q.QueryRowContext(ctx, `INSERT INTO recall_docs (kind, ref, chat, agent, who, text, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (kind, ref) DO UPDATE SET chat = excluded.chat, agent = excluded.agent, who = excluded.who,
			text = excluded.text, created_at = excluded.created_at
		RETURNING id`, d.kind, d.ref, d.chat, d.agent, d.who, text, at).Scan(&id); err != nil {
		return err
	}
	if _, err := q.ExecContext(ctx, `DELETE FROM recall_terms WHERE rowid = ?`, id); err != nil {
		return err
	}
	_, err := q.ExecContext(ctx, `INSERT INTO recall_terms (rowid, terms) VALUES (?, ?)`, id, terms)
	return err
}

// indexMessage indexes a stored message, if it says anything.
func (db *DB) indexMessage(ctx context.Context, q execQuerier, id int64, m store.Message, at time.Time) error {
	who, text := said(m.Role, m.Content)
	if text == "" {
		return nil
	}
	return db.index(ctx, q, recallDoc{kind: store.RecallMessage, ref: strconv.FormatInt(id, 10), chat: m.Chat, agent: m.Agent, who: who, text: text, at: at})
}

// IndexNote makes a wiki note searchable, replacing what was indexed of it
// before (the wiki calls it on every write).
func (db *DB) IndexNote(ctx context.Context, name, title, body string, modified time.Time) error {
	text := body
	if title != "" && title != name && !strings.Contains(body, title) {
		text = title + "\n" + body
	}
	if err := db.index(ctx, db.db, recallDoc{kind: store.RecallNote, ref: name, who: store.SaidInWiki, text: text, also: name, at: modified}); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "indexing the wiki note %q for search in %s: %w", name, db.path, err)
	}
	return nil
}

// IndexFile makes the text read from a document the owner sent in a chat
// searchable under its name, so "the contract I sent yesterday" is found
// by what it says. ref names the file once (the same file indexed again
// replaces itself).
func (db *DB) IndexFile(ctx context.Context, chat, agent, ref, name, text string, at time.Time) error {
	if err := db.index(ctx, db.db, recallDoc{kind: store.RecallFile, ref: ref, chat: chat, agent: agent, who: store.SaidByOwner, text: text, also: name, at: at}); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "indexing the file %q for search in %s: %w", name, db.path, err)
	}
	return nil
}

// ForgetNote takes a deleted wiki note out of the index.
func (db *DB) ForgetNote(ctx context.Context, name string) error {
	var id int64
	err := db.db.QueryRowContext(ctx, `DELETE FROM recall_docs WHERE kind = 'note' AND ref = ? RETURNING id`, name).Scan(&id)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err == nil && db.dialect == sqliteDialect:
		_, err = db.db.ExecContext(ctx, `DELETE FROM recall_terms WHERE rowid = ?`, id)
	}
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "taking the wiki note %q out of the search index in %s: %w", name, db.path, err)
	}
	return nil
}

// IndexedNotes returns the names of the wiki notes the index holds, so
// that notes deleted by hand can be taken out.
func (db *DB) IndexedNotes(ctx context.Context) ([]string, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT ref FROM recall_docs WHERE kind = 'note' ORDER BY ref`)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the indexed wiki notes in %s: %w", db.path, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the indexed wiki notes in %s: %w", db.path, err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the indexed wiki notes in %s: %w", db.path, err)
	}
	return out, nil
}

// IndexHistory indexes the next batch of the messages stored before the
// index existed, newest first, and says how far it has come. It is safe to
// run from several processes at once and to stop at any point: each
// batch commits with its progress.
func (db *DB) IndexHistory(ctx context.Context, batch int) (store.RecallProgress, error) {
	if batch <= 0 {
		batch = 500
	}
	var p store.RecallProgress
	fail := func(err error) (store.RecallProgress, error) {
		return p, jarvisbot.Errorf(jarvisbot.EINTERNAL, "indexing earlier messages for search in %s: %w", db.path, err)
	}
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback() // no-op after Commit
	if err := tx.serialize(ctx, "recall_progress"); err != nil {
		return fail(err)
	}
	var below int64
	if err := tx.QueryRowContext(ctx, `SELECT below, indexed, total FROM recall_progress WHERE id = 1`).Scan(&below, &p.Indexed, &p.Total); err != nil {
		return fail(err)
	}
	if below <= 0 {
		p.Done = true
		return p, nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, chat, agent, role, content, created_at FROM messages WHERE id < ? ORDER BY id DESC LIMIT ?`, below, batch)
	if err != nil {
		return fail(err)
	}
	type row struct {
		id      int64
		m       store.Message
		content string
		at      string
	}
	var todo []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.m.Chat, &r.m.Agent, &r.m.Role, &r.content, &r.at); err != nil {
			rows.Close()
			return fail(err)
		}
		todo = append(todo, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	// Rows are read in full first: pgx runs one statement at a time on a
	// connection.
	for _, r := range todo {
		at, err := parseTime(r.at)
		if err != nil {
			return fail(err)
		}
		r.m.Content = []byte(r.content)
		if err := db.indexMessage(ctx, tx, r.id, r.m, at); err != nil {
			return fail(err)
		}
		below = r.id
	}
	p.Indexed += int64(len(todo))
	if len(todo) < batch {
		below, p.Done = 0, true
	}
	if _, err := tx.ExecContext(ctx, `UPDATE recall_progress SET below = ?, indexed = ?, updated_at = ? WHERE id = 1`, below, p.Indexed, formatTime(db.now())); err != nil {
		return fail(err)
	}
	if err := tx.Commit(); err != nil {
		return fail(err)
	}
	return p, nil
}

// Search finds what was said with the words of query (see store.Recall).
func (db *DB) Search(ctx context.Context, query string, f store.RecallFilter) ([]store.RecallHit, error) {
	terms := queryTerms(query)
	if len(terms) == 0 {
		return nil, nil
	}
	var match, sqlText string
	if db.dialect == postgresDialect {
		match = "'" + strings.Join(terms, "' | '") + "'"
		sqlText = `SELECT d.kind, d.ref, d.chat, d.agent, d.who, d.text, d.created_at, ts_rank(d.terms, q.q) AS score
			FROM recall_docs d, (SELECT to_tsquery('simple', ?) AS q) q
			WHERE d.terms @@ q.q AND (? = '' OR d.chat = ?) AND (? = '' OR d.created_at >= ?) AND (? = '' OR d.created_at < ?)
			ORDER BY score DESC, d.created_at DESC, d.id DESC LIMIT ?`
	} else {
		match = `"` + strings.Join(terms, `" OR "`) + `"`
		sqlText = `SELECT d.kind, d.ref, d.chat, d.agent, d.who, d.text, d.created_at, -bm25(recall_terms) AS score
			FROM recall_terms JOIN recall_docs d ON d.id = recall_terms.rowid
			WHERE recall_terms MATCH ? AND (? = '' OR d.chat = ?) AND (? = '' OR d.created_at >= ?) AND (? = '' OR d.created_at < ?)
			ORDER BY score DESC, d.created_at DESC, d.id DESC LIMIT ?`
	}
	want := make(map[string]bool, len(terms))
	for _, t := range terms {
		want[t] = true
	}
	since, until := rangeText(f)
	return db.recallRows(ctx, "searching what was said", want, sqlText, match, f.Chat, f.Chat, since, since, until, until, recallLimit(f.Limit))
}

// Recent returns the latest messages (see store.Recall).
func (db *DB) Recent(ctx context.Context, f store.RecallFilter) ([]store.RecallHit, error) {
	since, until := rangeText(f)
	return db.recallRows(ctx, "reading the latest messages", nil, `SELECT kind, ref, chat, agent, who, text, created_at, 0
		FROM recall_docs WHERE kind = 'message' AND (? = '' OR chat = ?) AND (? = '' OR created_at >= ?) AND (? = '' OR created_at < ?)
		ORDER BY created_at DESC, id DESC LIMIT ?`, f.Chat, f.Chat, since, since, until, until, recallLimit(f.Limit))
}

// recallRows runs a query of hits; want are the stems snippets centre on.
func (db *DB) recallRows(ctx context.Context, doing string, want map[string]bool, q string, args ...any) ([]store.RecallHit, error) {
	rows, err := db.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "%s in %s: %w", doing, db.path, err)
	}
	defer rows.Close()
	var out []store.RecallHit
	for rows.Next() {
		var h store.RecallHit
		var text, at string
		if err := rows.Scan(&h.Kind, &h.Ref, &h.Chat, &h.Agent, &h.Who, &text, &at, &h.Score); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "%s in %s: %w", doing, db.path, err)
		}
		if h.At, err = parseTime(at); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "%s in %s: %w", doing, db.path, err)
		}
		h.Snippet = snippet(text, want)
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "%s in %s: %w", doing, db.path, err)
	}
	return out, nil
}

func recallLimit(n int) int {
	switch {
	case n <= 0:
		return store.DefaultRecallLimit
	case n > store.MaxRecallLimit:
		return store.MaxRecallLimit
	}
	return n
}

// rangeText is a filter's time range as the stored text compares, "" for
// an open end.
func rangeText(f store.RecallFilter) (since, until string) {
	if !f.Since.IsZero() {
		since = formatTime(f.Since)
	}
	if !f.Until.IsZero() {
		until = formatTime(f.Until)
	}
	return since, until
}

// snippet returns about 200 bytes of text around its first word whose
// stem is wanted, on one line; with none (or want nil) the start of text.
func snippet(text string, want map[string]bool) string {
	const before, after = 70, 150
	at := firstWanted(text, want)
	return excerpt.Around(text, at, before, after)
}

// firstWanted returns the byte offset of the first word of text whose stem
// is in want, or 0.
func firstWanted(text string, want map[string]bool) int {
	if len(want) == 0 {
		return 0
	}
	var buf []byte
	start := -1
	for i := 0; i <= len(text); {
		r, size := rune(' '), 1
		if i < len(text) {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		if i < len(text) && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)) {
			if start < 0 {
				start, buf = i, buf[:0]
			}
			buf = words.AppendFold(buf, r)
		} else if start >= 0 {
			if want[string(words.StemBytes(buf))] {
				return start
			}
			start = -1
		}
		i += size
	}
	return 0
}
