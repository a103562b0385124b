package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestPreferencesC5: the owner's marks survive a reopen, newest first; a
// second mark moves a name to the front; unmarking removes it.
func TestPreferencesC5(t *testing.T) {
	ctx := context.Background()
	path := testTarget(t)
	db := openTest(t, path)
	now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	db.now = func() time.Time { return now }
	for _, p := range []struct{ kind, name string }{{"plugin", "spotify"}, {"plugin", "youtube-music"}, {"mcp", "maps"}} {
		now = now.Add(time.Minute)
		if err := db.Prefer(ctx, p.kind, p.name); err != nil {
			t.Fatal(err)
		}
	}
	now = now.Add(time.Minute)
	if err := db.Prefer(ctx, "plugin", "spotify"); err != nil {
		t.Fatal(err)
	}
	if err := db.Unprefer(ctx, "mcp", "maps"); err != nil {
		t.Fatal(err)
	}
	if err := db.Prefer(ctx, "skill", "x"); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("prefer of kind skill: %v, want EINVALID", err)
	}
	db.Close()
	db = openTest(t, path)
	got, err := db.Preferred(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.Preference{{Kind: "plugin", Name: "spotify", At: now}, {Kind: "plugin", Name: "youtube-music", At: now.Add(-2 * time.Minute)}}
	if len(got) != len(want) {
		t.Fatalf("preferred %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Kind != want[i].Kind || got[i].Name != want[i].Name || !got[i].At.Equal(want[i].At) {
			t.Errorf("preferred[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestLastUsedC5: the activity board says when each tool was last called;
// a denied or expired call is not a use.
func TestLastUsedC5(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	t0 := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	for _, a := range []store.Activity{
		{At: t0, Agent: "default", Tool: "plugin:spotify", Tier: "monitor", Outcome: "ok"},
		{At: t0.Add(time.Hour), Agent: "default", Tool: "plugin:spotify", Tier: "monitor", Outcome: "error: no device"},
		{At: t0.Add(30 * time.Minute), Agent: "default", Tool: "mcp:maps/route", Tier: "monitor", Outcome: "ok"},
		{At: t0.Add(2 * time.Hour), Agent: "default", Tool: "mcp:maps/route", Tier: "ask", Outcome: "denied"},
		{At: t0.Add(3 * time.Hour), Agent: "default", Tool: "mcp:web/search", Tier: "ask", Outcome: "expired"},
	} {
		if err := db.RecordActivity(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.LastUsed(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !got["plugin:spotify"].Equal(t0.Add(time.Hour)) || !got["mcp:maps/route"].Equal(t0.Add(30*time.Minute)) {
		t.Errorf("last used %v", got)
	}
}

// TestMCPInstructionsC5: what a server said at initialize is kept with it.
func TestMCPInstructionsC5(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	if err := db.AddMCPServer(ctx, store.MCPServer{Name: "maps", Transport: "stdio", Command: "maps", Enabled: true, Instructions: "Directions and travel times."}); err != nil {
		t.Fatal(err)
	}
	if s, err := db.MCPServer(ctx, "maps"); err != nil || s.Instructions != "Directions and travel times." {
		t.Errorf("instructions after add: %q, %v", s.Instructions, err)
	}
	if err := db.SetMCPServerInstructions(ctx, "maps", "Places nearby."); err != nil {
		t.Fatal(err)
	}
	if s, err := db.MCPServer(ctx, "maps"); err != nil || s.Instructions != "Places nearby." {
		t.Errorf("instructions after set: %q, %v", s.Instructions, err)
	}
	if err := db.SetMCPServerInstructions(ctx, "nope", "x"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("set on an unknown server: %v", err)
	}
}
