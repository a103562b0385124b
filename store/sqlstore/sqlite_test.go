package sqlstore

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

func openTest(t *testing.T, path string) *DB {
	t.Helper()
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// ST1: one file in the data directory, created with its directory, and data
// survives a reopen.
func TestOpenCreatesDirectoryAndReopenKeepsData(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "nested", "data")
	path := filepath.Join(dir, "jarvisbot.db")
	if onPostgres() {
		path = testTarget(t)
	}

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if !onPostgres() {
		fi, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if perm := fi.Mode().Perm(); perm != 0o700 {
			t.Errorf("data directory mode = %o, want 700", perm)
		}
	}
	want := store.Agent{Name: "research", Description: "Reads papers.", Allow: []string{"mcp:arxiv/*"}, Block: []string{"cli:rm"}}
	if err := db.CreateAgent(ctx, want); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db = openTest(t, path)
	got, err := db.Agent(ctx, "research")
	if err != nil {
		t.Fatal(err)
	}
	if got.Description != want.Description || fmt.Sprint(got.Allow) != fmt.Sprint(want.Allow) || fmt.Sprint(got.Block) != fmt.Sprint(want.Block) || got.Focus != nil {
		t.Errorf("after reopen got %+v, want %+v", got, want)
	}
	if got.CreatedAt.IsZero() || got.CreatedAt.Location().String() != "UTC" {
		t.Errorf("CreatedAt = %v, want a UTC time", got.CreatedAt)
	}
}

// ST1: migrations are versioned, recorded once, and reapplying is a no-op.
func TestMigrationsIdempotent(t *testing.T) {
	ctx := context.Background()
	path := testTarget(t)
	migs, err := loadMigrations(migrationFiles, testDialect())
	if err != nil {
		t.Fatal(err)
	}
	latest := migs[len(migs)-1].version

	for i := 0; i < 3; i++ {
		db, err := Open(ctx, path)
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		v, err := db.SchemaVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if v != latest {
			t.Errorf("open %d: version %d, want %d", i, v, latest)
		}
		var n int
		if err := db.db.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != len(migs) {
			t.Errorf("open %d: %d rows in schema_migrations, want %d", i, n, len(migs))
		}
		db.Close()
	}

	// A later binary with one more step applies only that step, and reads
	// no other step's file.
	fsys := fstest.MapFS{}
	for _, m := range migs {
		fsys["migrations/"+testDialect().String()+"/"+m.name] = migrationFile(t, m)
	}
	next := fmt.Sprintf("%04d_notes.sql", latest+1)
	fsys["migrations/"+testDialect().String()+"/"+next] = &fstest.MapFile{Data: []byte(`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);`)}
	read := &openedFS{FS: fsys}
	db, err := open(ctx, path, read)
	if err != nil {
		t.Fatalf("open with %s: %v", next, err)
	}
	defer db.Close()
	if v, _ := db.SchemaVersion(ctx); v != latest+1 {
		t.Errorf("version %d after the new step, want %d", v, latest+1)
	}
	if want := []string{"migrations/" + testDialect().String() + "/" + next}; fmt.Sprint(read.sql) != fmt.Sprint(want) {
		t.Errorf("migration files read = %v, want only %v", read.sql, want)
	}
}

// openedFS records which .sql files are opened in FS.
type openedFS struct {
	fs.FS
	sql []string
}

func (o *openedFS) Open(name string) (fs.File, error) {
	if strings.HasSuffix(name, ".sql") {
		o.sql = append(o.sql, name)
	}
	return o.FS.Open(name)
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	path := testTarget(t)
	db := openTest(t, path)
	if _, err := db.db.ExecContext(ctx, `INSERT INTO schema_migrations VALUES (9999, '2030-01-01T00:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	_, err := Open(ctx, path)
	if err == nil {
		t.Fatal("Open accepted a database from a newer jarvisbot")
	}
	if jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT || !strings.Contains(err.Error(), "9999") || !strings.Contains(err.Error(), Redact(path)) {
		t.Errorf("error = %q (code %s), want ECONFLICT naming version 9999 and %s", err, jarvisbot.ErrorCode(err), Redact(path))
	}
}

func TestOpenRefusesNonDatabase(t *testing.T) {
	sqliteOnly(t, "files that are not databases")
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("this is not a database\x00\xff", 200)), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
	}{
		{"garbage file", garbage, "is not a SQLite database"},
		{"directory", dir, "is not a regular file"},
		{"empty path", "", "no database path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := Open(context.Background(), tt.path)
			if err == nil {
				db.Close()
				t.Fatalf("Open(%q) succeeded", tt.path)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.path) {
				t.Errorf("error = %q, want it to contain %q and the path", err, tt.want)
			}
			if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
				t.Errorf("code = %s, want %s", jarvisbot.ErrorCode(err), jarvisbot.EINVALID)
			}
		})
	}
}

func TestPathWithURISyntax(t *testing.T) {
	sqliteOnly(t, "file paths in a SQLite URI")
	path := filepath.Join(t.TempDir(), "odd?dir#1%", "j.db")
	db := openTest(t, path)
	if err := db.CreateAgent(context.Background(), store.Agent{Name: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database not at %s: %v", path, err)
	}
}

func TestPragmasOnEveryConnection(t *testing.T) {
	sqliteOnly(t, "SQLite's pragmas")
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	db.db.SetMaxOpenConns(4)
	// Hold several connections at once so the check covers more than the first.
	var conns []interface{ Close() error }
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := 0; i < 4; i++ {
		c, err := db.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		for _, p := range []struct{ pragma, want string }{
			{"journal_mode", "wal"},
			{"foreign_keys", "1"},
			{"busy_timeout", "5000"},
			{"synchronous", "1"}, // NORMAL
			{"cache_size", "-64"},
		} {
			var got string
			if err := c.QueryRowContext(ctx, "PRAGMA "+p.pragma).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != p.want {
				t.Errorf("conn %d: PRAGMA %s = %q, want %q", i, p.pragma, got, p.want)
			}
		}
	}
}

func TestConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	db, other := twoProcesses(t)

	const n = 20
	errs := make(chan error, 2*n)
	atOnce(n, db, other, func(i int, h *DB) {
		name := fmt.Sprintf("agent-%02d", i)
		if err := h.CreateAgent(ctx, store.Agent{Name: name}); err != nil {
			errs <- err
			return
		}
		if err := h.UpdateAgent(ctx, store.Agent{Name: name, Description: "updated"}); err != nil {
			errs <- err
		}
		if _, err := h.EnsureAgent(ctx, store.Agent{Name: store.DefaultAgent}); err != nil {
			errs <- err
		}
	})
	close(errs)
	for err := range errs {
		t.Errorf("concurrent write: %v", err)
	}
	all, err := db.Agents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != n+1 {
		t.Errorf("%d agents, want %d", len(all), n+1)
	}
}

func TestAgentsCRUDErrors(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	if err := db.CreateAgent(ctx, store.Agent{Name: "b", Description: "second"}); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateAgent(ctx, store.Agent{Name: "a", Description: "first"}); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		op   func() error
		want jarvisbot.Code
	}{
		{"create existing", func() error { return db.CreateAgent(ctx, store.Agent{Name: "a"}) }, jarvisbot.ECONFLICT},
		{"create bad name", func() error { return db.CreateAgent(ctx, store.Agent{Name: "Bad Name"}) }, jarvisbot.EINVALID},
		{"ensure bad name", func() error { _, err := db.EnsureAgent(ctx, store.Agent{Name: ""}); return err }, jarvisbot.EINVALID},
		{"get missing", func() error { _, err := db.Agent(ctx, "zz"); return err }, jarvisbot.ENOTFOUND},
		{"update missing", func() error { return db.UpdateAgent(ctx, store.Agent{Name: "zz"}) }, jarvisbot.ENOTFOUND},
		{"delete missing", func() error { return db.DeleteAgent(ctx, "zz") }, jarvisbot.ENOTFOUND},
		{"update existing", func() error {
			return db.UpdateAgent(ctx, store.Agent{Name: "a", Description: "changed", Focus: []string{"builtin:wiki"}})
		}, ""},
		{"delete existing", func() error { return db.DeleteAgent(ctx, "b") }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := jarvisbot.ErrorCode(tt.op()); got != tt.want {
				t.Errorf("code = %q, want %q", got, tt.want)
			}
		})
	}

	a, err := db.Agent(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if a.Description != "changed" || len(a.Focus) != 1 || a.Focus[0] != "builtin:wiki" {
		t.Errorf("after update got %+v", a)
	}
	if a.UpdatedAt.Before(a.CreatedAt) {
		t.Errorf("UpdatedAt %v before CreatedAt %v", a.UpdatedAt, a.CreatedAt)
	}
	all, err := db.Agents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all[0].Name != "a" {
		t.Errorf("Agents() = %+v, want only a", all)
	}
}

func TestEnsureAgentKeepsExisting(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	created, err := db.EnsureAgent(ctx, store.Agent{Name: store.DefaultAgent, Description: "seed"})
	if err != nil || !created {
		t.Fatalf("first EnsureAgent = %v, %v; want true, nil", created, err)
	}
	if err := db.UpdateAgent(ctx, store.Agent{Name: store.DefaultAgent, Description: "owner edit"}); err != nil {
		t.Fatal(err)
	}
	created, err = db.EnsureAgent(ctx, store.Agent{Name: store.DefaultAgent, Description: "seed"})
	if err != nil || created {
		t.Fatalf("second EnsureAgent = %v, %v; want false, nil", created, err)
	}
	a, _ := db.Agent(ctx, store.DefaultAgent)
	if a.Description != "owner edit" {
		t.Errorf("EnsureAgent overwrote the owner's edit: %q", a.Description)
	}
}

func TestAgentsSorted(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	for _, n := range []string{"zeta", "alpha", "mu", "0x"} {
		if err := db.CreateAgent(ctx, store.Agent{Name: n}); err != nil {
			t.Fatal(err)
		}
	}
	all, err := db.Agents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range all {
		names = append(names, a.Name)
	}
	if got := strings.Join(names, ","); got != "0x,alpha,mu,zeta" {
		t.Errorf("order = %s", got)
	}
}

// migrationFile is a shipped migration as a test's own set of steps holds
// it.
func migrationFile(t *testing.T, m migration) *fstest.MapFile {
	t.Helper()
	body, err := m.sql()
	if err != nil {
		t.Fatal(err)
	}
	return &fstest.MapFile{Data: []byte(body)}
}

// BenchmarkOpenCurrent opens a store already at the latest schema, as
// every start but the first after an upgrade does: what it allocates is
// on the heap before the owner can reach jarvisbot.
func BenchmarkOpenCurrent(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "jarvisbot.db")
	db, err := Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	db.Close()
	b.ReportAllocs()
	for b.Loop() {
		db, err := Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
}
