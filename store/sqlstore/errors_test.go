package sqlstore

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestUpdateRunOfUnrecordedRunFailsST1: progress stored for a run that was
// never claimed is an error, not a write that changes nothing (X4: nothing
// is lost without a word).
func TestUpdateRunOfUnrecordedRunFailsST1(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	err := db.UpdateRun(ctx, store.Run{ID: 42, Skill: "morning-brief", Outcome: "ok", Report: "Good morning"})
	if jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND || !strings.Contains(err.Error(), "run 42 of morning-brief") {
		t.Fatalf("UpdateRun of a run never claimed: %v, want ENOTFOUND naming the run", err)
	}

	due := time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)
	id, err := db.ClaimRun(ctx, store.Run{Skill: "morning-brief", DueAt: due, Outcome: "running"})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.UpdateRun(ctx, store.Run{ID: id, Skill: "morning-brief", Outcome: "ok", Report: "Good morning"}); err != nil {
		t.Fatalf("UpdateRun of a claimed run: %v", err)
	}
}

// TestStoreQueryErrorsNameTheDatabaseST1: every failure of a channel,
// inbox, history or activity query, a damaged row included, comes back as
// a jarvisbot error that names the database file, so the owner knows which
// file to look at; none is passed up as a bare driver error or lost.
func TestStoreQueryErrorsNameTheDatabaseST1(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		damage string // SQL run first, to damage a row
		closed bool   // the store is closed first
		call   func(db *DB) error
	}{
		{name: "delivered on a closed store", closed: true, call: func(db *DB) error { return db.Delivered(ctx, 1) }},
		{name: "undelivered on a closed store", closed: true, call: func(db *DB) error { _, err := db.Undelivered(ctx); return err }},
		{name: "owners on a closed store", closed: true, call: func(db *DB) error { _, err := db.Owners(ctx); return err }},
		{name: "inbox on a closed store", closed: true, call: func(db *DB) error { _, err := db.Waiting(ctx); return err }},
		{name: "receive on a closed store", closed: true, call: func(db *DB) error {
			_, err := db.Receive(ctx, store.Incoming{Chat: "console", Text: "hi"})
			return err
		}},
		{name: "activity with a damaged time",
			damage: `INSERT INTO activity (at, agent, tool, tier, outcome) VALUES ('yesterday', 'default', 'cli:gh', 'monitor', 'ok')`,
			call:   func(db *DB) error { _, err := db.RecentActivity(ctx, 10); return err }},
		{name: "history with a damaged time",
			damage: `INSERT INTO messages (chat, agent, role, content, created_at) VALUES ('console', 'default', 'user', '{}', 'yesterday')`,
			call:   func(db *DB) error { _, err := db.History(ctx, "console", 10); return err }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := openTest(t, testTarget(t))
			if c.damage != "" {
				if _, err := db.db.ExecContext(ctx, c.damage); err != nil {
					t.Fatal(err)
				}
			}
			if c.closed {
				if err := db.Close(); err != nil {
					t.Fatal(err)
				}
			}
			err := c.call(db)
			var je *jarvisbot.Error
			if !errors.As(err, &je) || !strings.Contains(err.Error(), db.Path()) {
				t.Fatalf("error %v (%T), want a jarvisbot error naming %s", err, err, db.Path())
			}
		})
	}
}

// TestUndeliveredKeepsAReplyWithADamagedTimeCH: a kept reply whose time
// does not read is still handed out for delivery, with no time.
func TestUndeliveredKeepsAReplyWithADamagedTimeCH(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	if _, err := db.db.ExecContext(ctx, `INSERT INTO outbox (chat, text, error, created_at) VALUES ('telegram:1', 'your report', 'timeout', 'yesterday')`); err != nil {
		t.Fatal(err)
	}
	got, err := db.Undelivered(ctx)
	if err != nil || len(got) != 1 || got[0].Text != "your report" || !got[0].CreatedAt.IsZero() {
		t.Fatalf("Undelivered = %+v, %v; want the reply, with no time", got, err)
	}
}
