package sqlstore

import (
	"context"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

var _ store.LearnedWords = (*DB)(nil)

// LearnWords records words for a server in one transaction, then trims
// the server to store.MaxLearnedPerServer: the words taught by the fewest
// turns, the least recently, go first.
func (db *DB) LearnWords(ctx context.Context, server string, words []store.LearnedWord, at time.Time) error {
	if len(words) == 0 {
		return nil
	}
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "learning words for %s in %s: %w", server, db.path, err)
	}
	defer tx.Rollback() // no-op after Commit
	when := formatTime(at)
	for _, w := range words {
		if _, err := tx.ExecContext(ctx, `INSERT INTO learned_words (server, word, label, turns, learned_at, last_at) VALUES (?, ?, ?, 1, ?, ?)
			ON CONFLICT (server, word) DO UPDATE SET turns = learned_words.turns + 1, last_at = excluded.last_at`,
			server, w.Word, w.Label, when, when); err != nil {
			return jarvisbot.Errorf(jarvisbot.EINTERNAL, "learning words for %s in %s: %w", server, db.path, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM learned_words WHERE server = ? AND word NOT IN (
		SELECT word FROM learned_words WHERE server = ? ORDER BY turns DESC, last_at DESC, word LIMIT ?)`,
		server, server, store.MaxLearnedPerServer); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "learning words for %s in %s: %w", server, db.path, err)
	}
	if err := tx.Commit(); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "learning words for %s in %s: %w", server, db.path, err)
	}
	return nil
}

// LearnedWords are every server's learned words, the most taught first.
func (db *DB) LearnedWords(ctx context.Context) (map[string][]store.LearnedWord, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT server, word, label, turns, learned_at, last_at FROM learned_words ORDER BY server, turns DESC, last_at DESC, word`)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading learned words from %s: %w", db.path, err)
	}
	defer rows.Close()
	out := map[string][]store.LearnedWord{}
	for rows.Next() {
		var w store.LearnedWord
		var learned, last string
		if err := rows.Scan(&w.Server, &w.Word, &w.Label, &w.Turns, &learned, &last); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading learned words from %s: %w", db.path, err)
		}
		if w.LearnedAt, err = parseTime(learned); err == nil {
			w.LastAt, err = parseTime(last)
		}
		if err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading learned words from %s: %w", db.path, err)
		}
		out[w.Server] = append(out[w.Server], w)
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading learned words from %s: %w", db.path, err)
	}
	return out, nil
}

// ForgetLearned removes one learned word of a server (matched by its stem
// or as written), or all of them for word "".
func (db *DB) ForgetLearned(ctx context.Context, server, word string) (int, error) {
	res, err := db.db.ExecContext(ctx, `DELETE FROM learned_words WHERE server = ? AND (? = '' OR word = ? OR label = ?)`, server, word, word, word)
	if err != nil {
		return 0, jarvisbot.Errorf(jarvisbot.EINTERNAL, "forgetting learned words of %s in %s: %w", server, db.path, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, jarvisbot.Errorf(jarvisbot.EINTERNAL, "forgetting learned words of %s in %s: %w", server, db.path, err)
	}
	return int(n), nil
}
