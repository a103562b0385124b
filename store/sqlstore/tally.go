package sqlstore

import (
	"context"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

var _ store.Tallies = (*DB)(nil)

// AddTally adds n to a day's count with one upsert: replicas counting the
// same day at once add up, neither overwrites the other.
func (db *DB) AddTally(ctx context.Context, day, agent, kind, key string, n int) error {
	_, err := db.db.ExecContext(ctx, `INSERT INTO daily_tallies (day, agent, kind, label, count) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (day, agent, kind, label) DO UPDATE SET count = daily_tallies.count + excluded.count`,
		day, agent, kind, key, n)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINTERNAL, "counting a %s (%s) in %s: %w", kind, key, db.path, err)
	}
	return nil
}

// TalliesSince returns the counts of day and later, by day, agent, kind
// and key. Days are "2006-01-02", which sort as text.
func (db *DB) TalliesSince(ctx context.Context, day string) ([]store.Tally, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT day, agent, kind, label, count FROM daily_tallies
		WHERE day >= ? ORDER BY day, agent, kind, label`, day)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the daily counts from %s: %w", db.path, err)
	}
	defer rows.Close()
	var out []store.Tally
	for rows.Next() {
		var t store.Tally
		if err := rows.Scan(&t.Day, &t.Agent, &t.Kind, &t.Key, &t.Count); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the daily counts from %s: %w", db.path, err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "reading the daily counts from %s: %w", db.path, err)
	}
	return out, nil
}
