package sqlstore

import (
	"context"
	"database/sql"
	"io/fs"
	"net/url"
	"time"

	"github.com/jarvisbot/jarvisbot"
)

// maxPostgresConns bounds one process's pool: PostgreSQL allows 100
// connections by default, shared by every replica and River's own pools.
const maxPostgresConns = 10

// openPostgres opens the PostgreSQL database at rawURL (ST2). The URL
// never appears in a message with its password: db.path is redacted.
func openPostgres(ctx context.Context, rawURL string, fsys fs.FS) (*DB, error) {
	shown := Redact(rawURL)
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" && u.Query().Get("host") == "" {
		// The parse error quotes the URL, password and all: not passed on.
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "database URL %s is not a URL such as postgres://USER@HOST:5432/DATABASE", shown)
	}
	migs, err := loadMigrations(fsys, postgresDialect)
	if err != nil {
		return nil, err
	}
	sqldb, err := sql.Open("pgx", rawURL)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "database URL %s cannot be used: check its form and parameters", shown)
	}
	sqldb.SetMaxOpenConns(maxPostgresConns)
	sqldb.SetMaxIdleConns(maxPostgresConns)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	return finishOpen(ctx, &DB{db: conn{sqldb, postgresDialect}, path: shown, dialect: postgresDialect, now: time.Now, leasePing: leasePingEvery}, migs)
}
