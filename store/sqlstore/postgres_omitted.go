//go:build nopostgres

package sqlstore

// A build tagged nopostgres (the release build, scripts/release.sh)
// leaves PostgreSQL out: pgx and River, linked but unused, would cost
// every SQLite process their pages (README, Figures). Such a build
// refuses a postgres:// store, saying which build has it.

import (
	"context"
	"io/fs"

	"github.com/jarvisbot/jarvisbot"
)

// pgLeases holds nothing: no store of this build is PostgreSQL.
type pgLeases struct{}

func openPostgres(_ context.Context, rawURL string, _ fs.FS) (*DB, error) {
	return nil, jarvisbot.Errorf(jarvisbot.EINVALID,
		"database %s: this jarvisbot is built without PostgreSQL, to keep the SQLite default light; "+
			"for a PostgreSQL store use a build with it (bash scripts/release.sh --postgres OUT, or go build ./cmd/jarvisbot)",
		Redact(rawURL))
}

// The store is never PostgreSQL here: openPostgres refuses it.

func (db *DB) closeLeases() {}

func (db *DB) tryLeadPostgres(context.Context, string) (jarvisbot.Lease, bool, error) {
	return nil, false, jarvisbot.Errorf(jarvisbot.EINTERNAL, "lease on %s: PostgreSQL is not in this build", db.path)
}

func (db *DB) leadPostgres(ctx context.Context, role string) (jarvisbot.Lease, error) {
	l, _, err := db.tryLeadPostgres(ctx, role)
	return l, err
}
