package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
)

// TestOwnerWikiIsTheAgentsWikiP5: the owner's notes land in <data
// dir>/wiki, where the agents' wiki tool reads them; SaveNote writes or
// appends, and only a delete removes a note.
func TestOwnerWikiIsTheAgentsWikiP5(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	w := Wiki(in.Config)
	if _, err := SaveNote(ctx, w, "garden/roses", "# Roses\n\nPrune in March.\n", false); err != nil {
		t.Fatal(err)
	}
	n, err := SaveNote(ctx, w, "garden/roses", "Feed in May.\n", true)
	if err != nil || !strings.Contains(n.Body, "Prune in March.") || !strings.Contains(n.Body, "Feed in May.") {
		t.Fatalf("append: %+v, %v", n, err)
	}
	if _, err := os.Stat(filepath.Join(in.Config.DataDir, "wiki", "garden", "roses.md")); err != nil {
		t.Errorf("the note is not in the data dir's wiki: %v", err)
	}
	out, err := w.Call(ctx, []byte(`{"action":"read","name":"garden/roses"}`))
	if err != nil || !strings.Contains(out, "Feed in May.") {
		t.Errorf("the agents' tool reads %q, %v", out, err)
	}
	if hits, err := w.Search(ctx, "march", 10); err != nil || len(hits) != 1 || hits[0].Title != "Roses" {
		t.Errorf("search: %+v, %v", hits, err)
	}
	if err := w.Delete(ctx, "garden/roses"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Read(ctx, "garden/roses"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("read after delete: %v", err)
	}
}
