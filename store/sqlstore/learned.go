package sqlstore

import (
	"context"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

var _ store.LearnedWords = (*DB)(nil)

// LearnWords records words for a server or skill in one transaction, then
// trims it to store.MaxLearned: the words taught by the fewest turns, the
// least recently, go first. A word taught again was used again: its
// ignores start over.
func (db *DB) LearnWords(ctx context.Context, kind store.LearnedKind, name string, words []store.LearnedWord, at time.Time) error {
	if len(words) == 0 {
		return nil
	}
	fail := func(err error) error {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "learning words for the %s %s in %s: %w", kind, name, db.path, err)
	}
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback() // no-op after Commit
	when := formatTime(at)
	for _, w := range words {
		if _, err := tx.ExecContext(ctx, `INSERT INTO learned_words (kind, name, word, label, turns, ignored, learned_at, last_at, chat) VALUES (?, ?, ?, ?, 1, 0, ?, ?, ?)
			ON CONFLICT (kind, name, word) DO UPDATE SET turns = learned_words.turns + 1, ignored = 0, last_at = excluded.last_at, chat = excluded.chat`,
			string(kind), name, w.Word, w.Label, when, when, w.Chat); err != nil {
			return fail(err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM learned_words WHERE kind = ? AND name = ? AND word NOT IN (
		SELECT word FROM learned_words WHERE kind = ? AND name = ? ORDER BY turns DESC, last_at DESC, word LIMIT ?)`,
		string(kind), name, string(kind), name, store.MaxLearned); err != nil {
		return fail(err)
	}
	if err := tx.Commit(); err != nil {
		return fail(err)
	}
	return nil
}

// LearnedWords are the learned words of every server or every skill, the
// most taught first.
func (db *DB) LearnedWords(ctx context.Context, kind store.LearnedKind) (map[string][]store.LearnedWord, error) {
	fail := func(err error) error {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the words learned for each %s from %s: %w", kind, db.path, err)
	}
	rows, err := db.db.QueryContext(ctx, `SELECT name, word, label, turns, ignored, learned_at, last_at, chat FROM learned_words
		WHERE kind = ? ORDER BY name, turns DESC, last_at DESC, word`, string(kind))
	if err != nil {
		return nil, fail(err)
	}
	defer rows.Close()
	out := map[string][]store.LearnedWord{}
	for rows.Next() {
		w := store.LearnedWord{Kind: kind}
		var learned, last string
		if err := rows.Scan(&w.Name, &w.Word, &w.Label, &w.Turns, &w.Ignored, &learned, &last, &w.Chat); err != nil {
			return nil, fail(err)
		}
		if w.LearnedAt, err = parseTime(learned); err == nil {
			w.LastAt, err = parseTime(last)
		}
		if err != nil {
			return nil, fail(err)
		}
		out[w.Name] = append(out[w.Name], w)
	}
	if err := rows.Err(); err != nil {
		return nil, fail(err)
	}
	return out, nil
}

// ForgetLearned removes one learned word of a server or skill (matched by
// its stem or as written), or all of them for word "".
func (db *DB) ForgetLearned(ctx context.Context, kind store.LearnedKind, name, word string) (int, error) {
	fail := func(err error) error {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "forgetting the words learned for the %s %s in %s: %w", kind, name, db.path, err)
	}
	res, err := db.db.ExecContext(ctx, `DELETE FROM learned_words WHERE kind = ? AND name = ? AND (? = '' OR word = ? OR label = ?)`,
		string(kind), name, word, word, word)
	if err != nil {
		return 0, fail(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fail(err)
	}
	return int(n), nil
}

// IgnoreLearned counts an ignored offer against each named word of a
// server or skill in one transaction, and drops the words that reach
// store.MaxIgnored.
func (db *DB) IgnoreLearned(ctx context.Context, kind store.LearnedKind, name string, words []string) (int, error) {
	if len(words) == 0 {
		return 0, nil
	}
	fail := func(err error) error {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "counting an ignored offer of the %s %s in %s: %w", kind, name, db.path, err)
	}
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fail(err)
	}
	defer tx.Rollback() // no-op after Commit
	for _, w := range words {
		if _, err := tx.ExecContext(ctx, `UPDATE learned_words SET ignored = ignored + 1 WHERE kind = ? AND name = ? AND (word = ? OR label = ?)`,
			string(kind), name, w, w); err != nil {
			return 0, fail(err)
		}
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM learned_words WHERE kind = ? AND name = ? AND ignored >= ?`, string(kind), name, store.MaxIgnored)
	if err != nil {
		return 0, fail(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fail(err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fail(err)
	}
	return int(n), nil
}

// UsedLearned starts the named words' ignored offers over.
func (db *DB) UsedLearned(ctx context.Context, kind store.LearnedKind, name string, words []string) error {
	for _, w := range words {
		if _, err := db.db.ExecContext(ctx, `UPDATE learned_words SET ignored = 0 WHERE kind = ? AND name = ? AND (word = ? OR label = ?) AND ignored > 0`,
			string(kind), name, w, w); err != nil {
			return jarvisbot.Errorf(jarvisbot.EINTERNAL, "counting a use of the words learned for the %s %s in %s: %w", kind, name, db.path, err)
		}
	}
	return nil
}
