package memory_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/memory"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/wiki"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

func openStore(t *testing.T) *sqlstore.DB {
	t.Helper()
	db, err := sqlstore.Open(context.Background(), filepath.Join(t.TempDir(), "jarvisbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func say(t *testing.T, db *sqlstore.DB, chat, role, text string, at time.Time) {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"role": role, "text": text})
	if _, err := db.AppendMessage(context.Background(), store.Message{Chat: chat, Agent: "default", Role: role, Content: b, CreatedAt: at}); err != nil {
		t.Fatal(err)
	}
}

// TestMemoryCallsA6: search finds what was said in any chat and the wiki
// with date, chat and who; since, until, chat and limit narrow it; recent
// reads the calling chat by default; wrong arguments are errors the model
// can act on.
func TestMemoryCallsA6(t *testing.T) {
	ctx := context.Background()
	db := openStore(t)
	berlin, _ := time.LoadLocation("Europe/Berlin")
	t0 := time.Date(2026, 10, 14, 7, 0, 0, 0, time.UTC)
	say(t, db, "telegram:1", "user", "The landlord wants the rent by the 3rd", t0)
	say(t, db, "telegram:1", "assistant", "Noted, rent to the landlord by the 3rd.", t0.Add(time.Minute))
	say(t, db, "discord:7", "user", "Der Vermieter ruft morgen an", t0.Add(48*time.Hour))
	w := wiki.New(t.TempDir()).IndexWith(db)
	if _, err := w.Write(ctx, "home/landlord", "# Landlord\nMr Berger, 0171 555\n"); err != nil {
		t.Fatal(err)
	}
	m := &memory.Memory{Recall: db, Location: berlin}
	cp := memory.Capability()
	run := func(args string) (string, error) {
		out, err := m.Run(ctx, catalog.Call{Cap: &cp, Args: json.RawMessage(args), Chat: "telegram:1", Agent: "default"})
		return out.Text, err
	}
	tests := []struct {
		args      string
		has, lack []string
		code      jarvisbot.Code
	}{
		{`{"action":"search","query":"landlords"}`, []string{"3 hits", "2026-10-14 09:00 telegram:1 owner: The landlord wants", "telegram:1 agent:", "wiki note home/landlord wiki:"}, nil, ""},
		{`{"action":"search","query":"landlord","chat":"telegram:1","limit":1}`, []string{"1 hit "}, []string{"wiki"}, ""},
		{`{"action":"search","query":"Vermieter","since":"2026-10-15"}`, []string{"discord:7 owner: Der Vermieter"}, nil, ""},
		{`{"action":"search","query":"landlord","until":"2026-10-14T09:00:30+02:00"}`, []string{"1 hit ", "owner: The landlord"}, nil, ""},
		{`{"action":"search","query":"submarine"}`, []string{`nothing said matches "submarine"`}, nil, ""},
		{`{"action":"recent","limit":1}`, []string{"the latest 1 message", "telegram:1 agent: Noted"}, []string{"discord"}, ""},
		{`{"action":"recent","chat":"discord:7"}`, []string{"discord:7 owner: Der Vermieter"}, nil, ""},
		{`{"action":"search"}`, nil, nil, jarvisbot.EINVALID},
		{`{"action":"search","query":"x","since":"last week"}`, nil, nil, jarvisbot.EINVALID},
		{`{"action":"forget"}`, nil, nil, jarvisbot.EINVALID},
		{`{"action":"search","words":"x"}`, nil, nil, jarvisbot.EINVALID},
		{``, nil, nil, jarvisbot.EINVALID},
	}
	for _, tt := range tests {
		got, err := run(tt.args)
		if tt.code != "" {
			if jarvisbot.ErrorCode(err) != tt.code {
				t.Errorf("%s: got %q, %v; want a %s error", tt.args, got, err, tt.code)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.args, err)
			continue
		}
		for _, h := range tt.has {
			if !strings.Contains(got, h) {
				t.Errorf("%s: %q lacks %q", tt.args, got, h)
			}
		}
		for _, l := range tt.lack {
			if strings.Contains(got, l) {
				t.Errorf("%s: %q has %q", tt.args, got, l)
			}
		}
	}
	if cp.Tier != catalog.TierSafe || memory.Server().ID != "recall" || memory.Server().Title != "Memory" || !memory.Server().Past {
		t.Errorf("the memory's catalog entry: %+v %+v", cp, memory.Server())
	}
}

// TestWikiIndexedA6: a note the wiki writes, appends to or deletes is
// found, found by its new words, or gone from search at once; notes
// edited by hand are picked up by Reindex.
func TestWikiIndexedA6(t *testing.T) {
	ctx := context.Background()
	db := openStore(t)
	dir := t.TempDir()
	w := wiki.New(dir).IndexWith(db)
	find := func(q string) int {
		hits, err := db.Search(ctx, q, store.RecallFilter{})
		if err != nil {
			t.Fatal(err)
		}
		return len(hits)
	}
	if _, err := w.Write(ctx, "garden", "Roses need pruning in March"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append(ctx, "garden", "Tulips go in before the frost"); err != nil {
		t.Fatal(err)
	}
	if find("roses") != 1 || find("tulip") != 1 {
		t.Errorf("written and appended words not found: roses %d, tulip %d", find("roses"), find("tulip"))
	}
	if err := w.Delete(ctx, "garden"); err != nil {
		t.Fatal(err)
	}
	if find("roses") != 0 {
		t.Errorf("a deleted note is still found")
	}
	// A note put there by hand, and one indexed that is gone.
	if _, err := wiki.New(dir).Write(ctx, "recipes/soup", "Pumpkin soup with ginger"); err != nil {
		t.Fatal(err)
	}
	if err := db.IndexNote(ctx, "old", "old", "obsolete words", time.Now()); err != nil {
		t.Fatal(err)
	}
	n, err := w.Reindex(ctx, []string{"old"})
	if err != nil || n != 1 {
		t.Fatalf("Reindex = %d, %v; want 1 note", n, err)
	}
	if find("pumpkin") != 1 || find("obsolete") != 0 {
		t.Errorf("after Reindex: pumpkin %d (want 1), obsolete %d (want 0)", find("pumpkin"), find("obsolete"))
	}
}

// TestMemoryDescribeCH2: an owner who raises the memory's tier to ask
// reads what a call will look for.
func TestMemoryDescribeCH2(t *testing.T) {
	m := &memory.Memory{}
	cp := memory.Capability()
	for _, c := range []struct {
		args, want string
		ok         bool
	}{
		{`{"action":"search","query":"landlord","chat":"telegram:1"}`, "Search what was said\nWords: landlord\nChat: telegram:1", true},
		{`{"action":"recent"}`, "Read the latest messages of this chat", true},
		{`{"action":"recent","chat":"discord:7"}`, "Read the latest messages of discord:7", true},
		{`{"action":"forget"}`, "", false},
	} {
		d, ok := m.Describe(context.Background(), catalog.Call{Cap: &cp, Args: json.RawMessage(c.args)})
		got := d.What
		for _, l := range d.Lines {
			got += "\n" + l.Label + ": " + l.Value
		}
		if ok != c.ok || ok && got != c.want {
			t.Errorf("%s: got (%v) %q, want %q", c.args, ok, got, c.want)
		}
	}
}
