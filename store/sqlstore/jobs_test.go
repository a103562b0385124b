package sqlstore

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestJobsKeepStateAcrossReopenM4: a posted job gets a short id, its own
// chat and state queued; lists are newest first by app; updates are kept;
// unfinished jobs come oldest first after a reopen, for a restart.
func TestJobsKeepStateAcrossReopenM4(t *testing.T) {
	ctx := context.Background()
	path := testTarget(t)
	db := openTest(t, path)
	now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	db.now = func() time.Time { return now }
	var ids []string
	for i, app := range []string{"cursor", "codex", "cursor"} {
		now = now.Add(time.Minute)
		chat := ""
		if i == 2 {
			chat = "app:cursor:default"
		}
		j, err := db.AddJob(ctx, store.Job{App: app, Title: "t", Text: "do it", Agent: "default", Why: "why", Chat: chat, State: store.JobDone})
		if err != nil {
			t.Fatal(err)
		}
		if j.State != store.JobQueued || len(j.ID) != 10 || !j.CreatedAt.Equal(now) {
			t.Errorf("added job %+v: want state queued, a 10-character id, created %s", j, now)
		}
		if want := "job:" + j.ID; chat == "" && j.Chat != want {
			t.Errorf("job chat %q, want %q", j.Chat, want)
		}
		ids = append(ids, j.ID)
	}
	if len(slices.Compact(slices.Sorted(slices.Values(ids)))) != 3 {
		t.Errorf("ids not unique: %v", ids)
	}
	got, err := db.UpdateJob(ctx, ids[0], func(j *store.Job) error {
		j.State, j.Result, j.Tools, j.Attempts = store.JobDone, "the answer", []string{"builtin:wiki"}, 1
		j.StartedAt, j.FinishedAt = now, now.Add(time.Second)
		j.ID, j.App = "other", "other" // kept as they were
		return nil
	})
	if err != nil || got.ID != ids[0] || got.App != "cursor" || got.Result != "the answer" {
		t.Fatalf("UpdateJob: %+v, %v", got, err)
	}
	refuse := jarvisbot.Errorf(jarvisbot.ECONFLICT, "no")
	if _, err := db.UpdateJob(ctx, ids[1], func(j *store.Job) error { j.State = store.JobFailed; return refuse }); err != refuse {
		t.Errorf("refused update returned %v", err)
	}
	if _, err := db.UpdateJob(ctx, "nope", func(*store.Job) error { return nil }); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("update of a missing job: %v, want ENOTFOUND", err)
	}
	if _, err := db.Job(ctx, "nope"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("missing job: %v, want ENOTFOUND", err)
	}
	db.Close()
	db = openTest(t, path)

	j, err := db.Job(ctx, ids[0])
	if err != nil || j.State != store.JobDone || !slices.Equal(j.Tools, []string{"builtin:wiki"}) || j.Attempts != 1 ||
		!j.FinishedAt.Equal(now.Add(time.Second)) || j.Why != "why" {
		t.Errorf("job after reopen: %+v, %v", j, err)
	}
	list, err := db.Jobs(ctx, "cursor", 0)
	if err != nil || len(list) != 2 || list[0].ID != ids[2] || list[1].ID != ids[0] {
		t.Errorf("cursor's jobs: %v, %v; want %s then %s", jobIDs(list), err, ids[2], ids[0])
	}
	all, _ := db.Jobs(ctx, "", 2)
	if len(all) != 2 || all[0].ID != ids[2] {
		t.Errorf("all jobs limit 2: %v", jobIDs(all))
	}
	open, err := db.UnfinishedJobs(ctx)
	if err != nil || !slices.Equal(jobIDs(open), []string{ids[1], ids[2]}) {
		t.Errorf("unfinished: %v, %v; want %v", jobIDs(open), err, ids[1:])
	}
}

func jobIDs(list []store.Job) []string {
	var out []string
	for _, j := range list {
		out = append(out, j.ID)
	}
	return out
}

// TestNotesTakenOnceM4: an agent's unread notes come oldest first, once;
// another agent's stay unread.
func TestNotesTakenOnceM4(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	for _, n := range []store.Note{{Agent: "reviewer", From: "cursor", Text: "first"}, {Agent: "default", From: "codex", Text: "other"}, {Agent: "reviewer", From: "codex", Text: "second"}} {
		if _, err := db.AddNote(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.AddNote(ctx, store.Note{Agent: "reviewer", Text: "  "}); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("empty note: %v, want EINVALID", err)
	}
	got, err := db.TakeNotes(ctx, "reviewer")
	if err != nil || len(got) != 2 || got[0].Text != "first" || got[0].From != "cursor" || got[1].Text != "second" {
		t.Fatalf("first take: %+v, %v", got, err)
	}
	if again, err := db.TakeNotes(ctx, "reviewer"); err != nil || len(again) != 0 {
		t.Errorf("second take: %+v, %v; want none", again, err)
	}
	if other, _ := db.TakeNotes(ctx, "default"); len(other) != 1 || other[0].Text != "other" {
		t.Errorf("default's notes: %+v", other)
	}
}
