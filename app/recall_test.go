package app

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/store"
)

// TestIndexHistoryA6: history stored before the search index existed
// (rows written behind the store's back, and the progress row set back as
// migration 0032 leaves it on an old store) is found once IndexHistory
// has run, which logs its progress and also picks up wiki notes written
// by hand; a cancelled context stops it at once.
func TestIndexHistoryA6(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	if !strings.HasPrefix(in.DB.Path(), "/") {
		t.Skip("the test writes the SQLite file directly")
	}
	raw, err := sql.Open("sqlite", in.DB.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	const n = 1200 // more than two batches
	t0 := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	tx, err := raw.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		text := fmt.Sprintf("old message %d", i)
		if i == 17 {
			text = "My passport number ends in 4711"
		}
		b, _ := json.Marshal(map[string]string{"role": "user", "text": text})
		if _, err := tx.Exec(`INSERT INTO messages (chat, agent, role, content, created_at) VALUES (?, 'default', 'user', ?, ?)`,
			"telegram:42", string(b), t0.Add(time.Duration(i)*time.Minute).Format(time.RFC3339Nano)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Exec(`UPDATE recall_progress SET below = (SELECT max(id) + 1 FROM messages), indexed = 0, total = (SELECT count(*) FROM messages)`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	wikiDir := filepath.Join(in.Config.DataDir, "wiki")
	if err := os.MkdirAll(wikiDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wikiDir, "travel.md"), []byte("# Travel\nPassport renewal is due in 2027\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if hits, _ := in.SearchSaid(ctx, "passport", store.RecallFilter{}); len(hits) != 0 {
		t.Fatalf("found before indexing: %+v", hits)
	}

	stopped, cancel := context.WithCancel(ctx)
	cancel()
	if err := IndexHistory(stopped, in.DB, in.Wiki(), slog.New(slog.DiscardHandler), time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled indexing returned %v, want context.Canceled", err)
	}

	var logged bytes.Buffer
	if err := IndexHistory(ctx, in.DB, in.Wiki(), slog.New(slog.NewTextHandler(&logged, nil)), 0); err != nil {
		t.Fatal(err)
	}
	hits, err := in.SearchSaid(ctx, "passport", store.RecallFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	for _, h := range hits {
		said = append(said, h.Who+": "+h.Snippet)
	}
	if got := strings.Join(said, " | "); !strings.Contains(got, "owner: My passport number ends in 4711") || !strings.Contains(got, "wiki: ") || len(hits) != 2 {
		t.Errorf("after indexing, passport finds %q", got)
	}
	for _, want := range []string{"indexing earlier messages for search", "total=1200", "indexed=500", "indexed=1000", "earlier messages are searchable now"} {
		if !strings.Contains(logged.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, logged.String())
		}
	}
}
