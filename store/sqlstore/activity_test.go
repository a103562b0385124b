package sqlstore

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/store"
)

// TestActivityBoardFiltersAndFollowsC2: the board filters by agent,
// tool (exact or a prefix ending in "*") and outcome (exact or its kind
// before ":"), newest first; ActivitySince gives what came after an id,
// oldest first, with the same filters; LastActivityID is the newest id.
func TestActivityBoardFiltersAndFollowsC2(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	if id, err := db.LastActivityID(ctx); err != nil || id != 0 {
		t.Fatalf("empty board: LastActivityID = %d, %v", id, err)
	}
	t0 := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	for i, a := range []store.Activity{
		{Agent: "default", Tool: "mcp:git_hub/create_issue", Outcome: "ok"},
		{Agent: "coder", Tool: "mcp:git_hub/merge", Outcome: "error: the server did not answer"},
		{Agent: "coder", Tool: "cli:echo", Outcome: "denied"},
		{Agent: "default", Tool: "mcp:gitXhub/list", Outcome: "errors galore"},
	} {
		a.At, a.Tier = t0.Add(time.Duration(i)*time.Minute), "monitor"
		if err := db.RecordActivity(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	tools := func(es []store.ActivityEntry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.Tool)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		f    store.ActivityFilter
		want []string
	}{
		{"everything, newest first", store.ActivityFilter{}, []string{"mcp:gitXhub/list", "cli:echo", "mcp:git_hub/merge", "mcp:git_hub/create_issue"}},
		{"one agent", store.ActivityFilter{Agent: "coder"}, []string{"cli:echo", "mcp:git_hub/merge"}},
		{"one tool", store.ActivityFilter{Tool: "cli:echo"}, []string{"cli:echo"}},
		{"a tool prefix; _ is no wildcard", store.ActivityFilter{Tool: "mcp:git_hub/*"}, []string{"mcp:git_hub/merge", "mcp:git_hub/create_issue"}},
		{"an outcome's kind, not a word's start", store.ActivityFilter{Outcome: "error"}, []string{"mcp:git_hub/merge"}},
		{"an exact outcome", store.ActivityFilter{Outcome: "denied"}, []string{"cli:echo"}},
		{"agent and outcome", store.ActivityFilter{Agent: "default", Outcome: "ok"}, []string{"mcp:git_hub/create_issue"}},
		{"nothing matches", store.ActivityFilter{Agent: "nobody"}, nil},
	} {
		got, err := db.ActivityBoard(ctx, tc.f, 0)
		if err != nil || !slices.Equal(tools(got), tc.want) {
			t.Errorf("%s: %v, %v; want %v", tc.name, tools(got), err, tc.want)
		}
	}
	all, _ := db.ActivityBoard(ctx, store.ActivityFilter{}, 2)
	if len(all) != 2 || all[0].ID <= all[1].ID || all[0].Agent != "default" || all[0].At != t0.Add(3*time.Minute) {
		t.Fatalf("limited board: %+v", all)
	}
	last, err := db.LastActivityID(ctx)
	if err != nil || last != all[0].ID {
		t.Fatalf("LastActivityID = %d, %v; want %d", last, err, all[0].ID)
	}
	since, err := db.ActivitySince(ctx, store.ActivityFilter{}, all[1].ID, 0)
	if err != nil || !slices.Equal(tools(since), []string{"mcp:gitXhub/list"}) {
		t.Errorf("since the second newest: %v, %v", tools(since), err)
	}
	since, err = db.ActivitySince(ctx, store.ActivityFilter{Agent: "coder"}, 0, 0)
	if err != nil || !slices.Equal(tools(since), []string{"mcp:git_hub/merge", "cli:echo"}) {
		t.Errorf("since the start, one agent, oldest first: %v, %v", tools(since), err)
	}
	if since, _ := db.ActivitySince(ctx, store.ActivityFilter{}, last, 0); len(since) != 0 {
		t.Errorf("nothing after the newest: %v", tools(since))
	}
}
