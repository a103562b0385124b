package sqlstore

import (
	"context"

	"github.com/jarvisbot/jarvisbot"
)

// Ping checks that the database answers, for serve's readiness probe
// (issue 20).
func (db *DB) Ping(ctx context.Context) error {
	if err := db.db.PingContext(ctx); err != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "the database %s does not answer: %w", db.path, err)
	}
	return nil
}
