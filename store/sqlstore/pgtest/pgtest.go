// Package pgtest makes throwaway PostgreSQL databases for tests (ST2: the
// store's PostgreSQL dialect and the replicas that share one database),
// on the cluster whose superuser URL JARVIS_TEST_POSTGRES_URL names;
// scripts/test.sh starts such a cluster and sets it.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// EnvURL names the variable holding the test cluster's superuser URL.
const EnvURL = "JARVIS_TEST_POSTGRES_URL"

// Fresh makes an empty database named prefix_ and a random suffix on the
// test cluster, drops it when the test ends, and returns its URL. The test
// is skipped where no cluster is set.
func Fresh(t testing.TB, prefix string) string {
	t.Helper()
	base := os.Getenv(EnvURL)
	if base == "" {
		t.Skip(EnvURL + " is not set: scripts/test.sh starts a PostgreSQL for these tests")
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", EnvURL, err)
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connecting to the test PostgreSQL: %v", err)
	}
	defer admin.Close(ctx)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := prefix + "_" + hex.EncodeToString(b)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("creating test database %s: %v", name, err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), base)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	u.Path = "/" + name
	return u.String()
}
