package app

import (
	"context"
	"testing"

	"github.com/jarvisbot/jarvisbot/store"
)

// TestActivityBoardAndFollowC2: the board is newest first and filtered,
// its Last is the newest entry of all, and ActivitySince goes on from it.
func TestActivityBoardAndFollowC2(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	for _, a := range []store.Activity{
		{Agent: "default", Tool: "builtin:wiki", Outcome: "ok"},
		{Agent: "notes", Tool: "cli:gh", Outcome: "denied"},
		{Agent: "default", Tool: "cli:gh", Outcome: "ok"},
	} {
		if err := in.DB.RecordActivity(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	b, err := in.Activity(ctx, store.ActivityFilter{Agent: "default"}, 10)
	if err != nil || len(b.Entries) != 2 || b.Entries[0].Tool != "cli:gh" {
		t.Fatalf("board of default: %+v, %v", b, err)
	}
	if b.Last != b.Entries[0].ID {
		t.Errorf("last %d, want the newest entry's %d", b.Last, b.Entries[0].ID)
	}
	if err := in.DB.RecordActivity(ctx, store.Activity{Agent: "default", Tool: "builtin:browser", Outcome: "ok"}); err != nil {
		t.Fatal(err)
	}
	next, err := in.ActivitySince(ctx, store.ActivityFilter{}, b.Last)
	if err != nil || len(next) != 1 || next[0].Tool != "builtin:browser" {
		t.Errorf("since %d: %+v, %v", b.Last, next, err)
	}
}

// TestActivityWhoNamesTheAppC2: a call an app asked for is shown as the
// agent's work for that app, never as the owner's.
func TestActivityWhoNamesTheAppC2(t *testing.T) {
	if got := ActivityWho("default", ""); got != "default" {
		t.Errorf("the owner's call: %q", got)
	}
	if got := ActivityWho("default", "laptop"); got != "default for app laptop" {
		t.Errorf("an app's call: %q", got)
	}
}
