package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
)

// TestMigrationsMatchAcrossDialectsST2: every schema step exists for both
// engines under the same number and name, so a store moved from SQLite to
// PostgreSQL (or read by either) is at the same version.
func TestMigrationsMatchAcrossDialectsST2(t *testing.T) {
	lite, err := loadMigrations(migrationFiles, sqliteDialect)
	if err != nil {
		t.Fatal(err)
	}
	pg, err := loadMigrations(migrationFiles, postgresDialect)
	if err != nil {
		t.Fatal(err)
	}
	names := func(ms []migration) string {
		var out []string
		for _, m := range ms {
			out = append(out, m.name)
		}
		return strings.Join(out, "\n")
	}
	if len(lite) == 0 || names(lite) != names(pg) {
		t.Errorf("the migrations differ:\nsqlite:\n%s\npostgres:\n%s", names(lite), names(pg))
	}
}

// TestRebindST2: '?' becomes $n for PostgreSQL, except inside quotes;
// SQLite gets the text unchanged.
func TestRebindST2(t *testing.T) {
	tests := []struct{ in, pg string }{
		{`SELECT 1`, `SELECT 1`},
		{`SELECT a FROM t WHERE b = ? AND c = ?`, `SELECT a FROM t WHERE b = $1 AND c = $2`},
		{`INSERT INTO t (x, "user") VALUES (?, '?') RETURNING id`, `INSERT INTO t (x, "user") VALUES ($1, '?') RETURNING id`},
		{`SELECT "a?b", ? || ':'`, `SELECT "a?b", $1 || ':'`},
	}
	for _, tt := range tests {
		if got := postgresDialect.rebind(tt.in); got != tt.pg {
			t.Errorf("postgres rebind(%q) = %q, want %q", tt.in, got, tt.pg)
		}
		if got := sqliteDialect.rebind(tt.in); got != tt.in {
			t.Errorf("sqlite rebind(%q) = %q, want it unchanged", tt.in, got)
		}
	}
}

// TestRedactHidesThePasswordST2: a database URL is shown without its
// password wherever it appears; a path is shown as it is.
func TestRedactHidesThePasswordST2(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/data/jarvisbot.db", "/data/jarvisbot.db"},
		{"postgres://jarvis:s3cr3t@db:5432/jarvis", "postgres://jarvis:xxxxx@db:5432/jarvis"},
		{"postgresql://jarvis@db/jarvis?password=s3cr3t&sslmode=require", "postgresql://jarvis@db/jarvis?password=xxxxx&sslmode=require"},
		{"postgres://jarvis:s3cr3t@db:bad port/x", "postgres://(unreadable URL)"},
	}
	for _, tt := range tests {
		if got := Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestOpenPostgresErrorsHideThePasswordST2: a database that cannot be
// reached is an error naming it without its password.
func TestOpenPostgresErrorsHideThePasswordST2(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, target := range []string{
		"postgres://jarvis:s3cr3t@127.0.0.1:1/jarvis?sslmode=disable&connect_timeout=2",
		"postgres://jarvis:s3cr3t@[::1/jarvis",
	} {
		db, err := Open(ctx, target)
		if err == nil {
			db.Close()
			t.Fatalf("Open(%s) succeeded", Redact(target))
		}
		if strings.Contains(err.Error(), "s3cr3t") || !strings.Contains(err.Error(), "postgres://") {
			t.Errorf("error %q: want it to name the database without the password", err)
		}
		if c := jarvisbot.ErrorCode(err); c != jarvisbot.EUNAVAILABLE && c != jarvisbot.EINVALID {
			t.Errorf("code %s, want unavailable or invalid", c)
		}
	}
}

// TestPostgresLeaseLostWithItsConnectionST2: when the session holding a
// lease ends (a broken network, an administrator's kill), Lost closes and
// another process is granted the role.
func TestPostgresLeaseLostWithItsConnectionST2(t *testing.T) {
	if !onPostgres() {
		t.Skip("PostgreSQL only: SQLite's file lock is never lost while its process lives")
	}
	target := testTarget(t)
	a, b := openTest(t, target), openTest(t, target)
	a.leasePing = 50 * time.Millisecond
	ctx := context.Background()
	l, ok, err := a.TryLead(ctx, "telegram-poll")
	if err != nil || !ok {
		t.Fatalf("TryLead: %v %v", ok, err)
	}
	defer l.Release()
	if _, ok, _ := b.TryLead(ctx, "telegram-poll"); ok {
		t.Fatal("granted twice")
	}
	// End the holding session from outside.
	var n int
	err = b.db.QueryRowContext(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_locks
		WHERE locktype = 'advisory' AND classid = ? AND objid = hashtext(?)::oid AND objsubid = 2`, nsLease, "telegram-poll").Scan(&n)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("terminated %d sessions, want the lease's one", n)
	}
	select {
	case <-l.Lost():
	case <-time.After(30 * time.Second):
		t.Fatal("Lost did not close after the session ended")
	}
	lb, err := b.Lead(ctx, "telegram-poll")
	if err != nil {
		t.Fatal(err)
	}
	lb.Release()
}

// TestReplicasMigrateTogetherST2: processes opening one new store at the
// same moment (replicas started together) each come up at the latest
// version, every step applied once.
func TestReplicasMigrateTogetherST2(t *testing.T) {
	target := testTarget(t)
	ctx := context.Background()
	const n = 4
	dbs := make([]*DB, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { dbs[i], errs[i] = Open(ctx, target) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
		defer dbs[i].Close()
	}
	migs, err := loadMigrations(migrationFiles, testDialect())
	if err != nil {
		t.Fatal(err)
	}
	var rows, distinct int
	if err := dbs[0].db.QueryRowContext(ctx, `SELECT count(*), count(DISTINCT version) FROM schema_migrations`).Scan(&rows, &distinct); err != nil {
		t.Fatal(err)
	}
	if rows != len(migs) || distinct != len(migs) {
		t.Errorf("schema_migrations has %d rows (%d versions), want %d", rows, distinct, len(migs))
	}
}
