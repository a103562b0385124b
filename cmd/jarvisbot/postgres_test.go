package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
	"github.com/jarvisbot/jarvisbot/store/sqlstore/pgtest"
)

// TestServeOnPostgresST2: with JARVIS_DATABASE_URL set, the commands and
// serve keep everything in that PostgreSQL database: an agent added by
// the CLI, a tool connected, a console turn and its history; no SQLite
// file appears in the data directory.
func TestServeOnPostgresST2(t *testing.T) {
	dbURL := pgtest.Fresh(t, "replicas")
	e := newTestEnv(t)
	f := withModel(t, e)
	e.vars["JARVIS_DATABASE_URL"] = dbURL
	e.mustJarvis(t, "", "agents", "add", "notes", "--describe", "keeps my wiki notes tidy")
	e.mustJarvis(t, "", "cli", "add", "echo")

	c := startTerminal(e)
	waitOutput(t, c.out, "listening here")
	f.Push(fakellm.Step{Text: "Hello from PostgreSQL."})
	c.say("hi")
	waitOutput(t, c.out, "Hello from PostgreSQL.")
	c.stop()
	c.in.Close()
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not stop:\n%s", c.out.String())
	}

	db, err := sqlstore.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if a, err := db.Agent(ctx, "notes"); err != nil || a.Description != "keeps my wiki notes tidy" {
		t.Errorf("the agent in PostgreSQL: %+v, %v", a, err)
	}
	if tools, err := db.CLITools(ctx); err != nil || len(tools) != 1 || tools[0].Name != "echo" {
		t.Errorf("the CLI tools in PostgreSQL: %+v, %v", tools, err)
	}
	hist, err := db.History(ctx, "console", 10)
	if err != nil || len(hist) < 2 || !strings.Contains(string(hist[len(hist)-1].Content), "Hello from PostgreSQL.") {
		t.Errorf("the console's history in PostgreSQL: %d messages, %v", len(hist), err)
	}
	if _, err := os.Stat(filepath.Join(e.vars["JARVIS_DATA_DIR"], app.DBFile)); !os.IsNotExist(err) {
		t.Errorf("a SQLite file was made beside the PostgreSQL store: %v", err)
	}
}

// TestPostgresURLPasswordNeverShownST2: a store that cannot be reached is
// an error that names it without its password.
func TestPostgresURLPasswordNeverShownST2(t *testing.T) {
	e := newTestEnv(t)
	e.vars["JARVIS_DATABASE_URL"] = "postgres://jarvis:s3cr3t-pw@127.0.0.1:1/jarvis?sslmode=disable&connect_timeout=5"
	code, out, errOut := e.jarvis(t, "", "agents", "list")
	if code == 0 {
		t.Fatalf("agents list on an unreachable store succeeded:\n%s", out)
	}
	if strings.Contains(out+errOut, "s3cr3t-pw") {
		t.Errorf("the password was shown:\n%s%s", out, errOut)
	}
	if !strings.Contains(errOut, "127.0.0.1:1") {
		t.Errorf("the error does not name the database:\n%s", errOut)
	}
}
