package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/store"
)

// TestModelCallsKeepEveryFigure: a recorded call comes back with every
// figure it was recorded with; ModelCallsSince gives the calls at or after
// a time, oldest first, across a time zone's offset.
func TestModelCallsKeepEveryFigure(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	t0 := time.Date(2026, 12, 3, 23, 30, 0, 0, time.UTC)
	calls := []store.ModelCall{
		{At: t0, Agent: "default", Source: "chat", Chat: "telegram:1", Provider: "anthropic", Model: "claude-sonnet-4-5",
			InputTokens: 1200, OutputTokens: 80, CacheReadTokens: 3000, CacheWriteTokens: 400, Duration: 1500 * time.Millisecond,
			Outcome: "ok", ToolsSent: 7, ToolTokens: 900, CatalogTokens: 21000},
		{At: t0.Add(time.Hour), Agent: "inbox", Source: "schedule:morning-brief", Chat: "telegram:1", Provider: "openai", Model: "gpt-4.1",
			InputTokens: 500, Outcome: "error: the provider is overloaded (529)"},
		{At: t0.Add(2 * time.Hour).In(time.FixedZone("CET", 3600)), Agent: "default", Source: "app:notes", Provider: "openai", Model: "gpt-4.1", Outcome: "ok"},
	}
	for _, c := range calls {
		if err := db.RecordModelCall(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.ModelCallsSince(ctx, t0.Add(30*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("ModelCallsSince gave %d calls, want the last 2: %+v", len(got), got)
	}
	want := calls[1]
	want.ID, want.At = got[0].ID, got[0].At
	if got[0] != want || !got[0].At.Equal(calls[1].At) {
		t.Errorf("the call came back as %+v, want %+v", got[0], want)
	}
	if got[1].Source != "app:notes" || !got[1].At.Equal(calls[2].At) {
		t.Errorf("second call: %+v", got[1])
	}
	all, err := db.ModelCallsSince(ctx, time.Time{})
	if err != nil || len(all) != 3 || all[0].ToolTokens != 900 || all[0].CatalogTokens != 21000 || all[0].Duration != 1500*time.Millisecond {
		t.Errorf("all calls: %+v, %v", all, err)
	}
}
