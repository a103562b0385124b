package sqlstore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jarvisbot/jarvisbot/store/sqlstore/pgtest"
)

// The store's tests run on SQLite, or with JARVIS_TEST_STORE=postgres on
// the PostgreSQL that JARVIS_TEST_POSTGRES_URL names (a superuser URL;
// scripts/test.sh starts a throwaway cluster and sets both).
const (
	envTestStore       = "JARVIS_TEST_STORE"
	envTestPostgresURL = pgtest.EnvURL
)

// onPostgres reports whether this run tests the PostgreSQL store.
func onPostgres() bool { return os.Getenv(envTestStore) == "postgres" }

// sqliteOnly skips a test about SQLite's file on a PostgreSQL run.
func sqliteOnly(t *testing.T, why string) {
	t.Helper()
	if onPostgres() {
		t.Skip("SQLite only: " + why)
	}
}

// testTarget is where a test's store lives: a fresh SQLite file, or a
// fresh PostgreSQL database made for the test and dropped after it.
// Opening the same target twice is two handles on one store, as two
// processes would have.
func testTarget(t *testing.T) string {
	t.Helper()
	if !onPostgres() {
		return filepath.Join(t.TempDir(), "jarvisbot.db")
	}
	base := os.Getenv(envTestPostgresURL)
	if base == "" {
		t.Fatalf("%s=postgres needs %s, a superuser URL of the test cluster (scripts/postgres.sh pg_start sets it)", envTestStore, envTestPostgresURL)
	}
	return pgtest.Fresh(t, "store")
}

// testDialect is the dialect this run tests.
func testDialect() dialect {
	if onPostgres() {
		return postgresDialect
	}
	return sqliteDialect
}
