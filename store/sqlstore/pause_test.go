package sqlstore

import (
	"context"
	"testing"
)

// TestPauseSurvivesReopenM4: a pause is kept across a restart until resumed.
func TestPauseSurvivesReopenM4(t *testing.T) {
	ctx := context.Background()
	path := testTarget(t)
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if p, _, _, err := db.Paused(ctx); err != nil || p {
		t.Fatalf("a new store is paused: %v %v", p, err)
	}
	if err := db.SetPaused(ctx, true, "app ci-bot"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if p, by, at, err := db.Paused(ctx); err != nil || !p || by != "app ci-bot" || at.IsZero() {
		t.Fatalf("after reopening: paused %v by %q at %v, %v", p, by, at, err)
	}
	if err := db.SetPaused(ctx, false, ""); err != nil {
		t.Fatal(err)
	}
	if p, _, _, _ := db.Paused(ctx); p {
		t.Error("still paused after resume")
	}
}
