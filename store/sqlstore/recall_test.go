package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore/pgtest"
)

// sayIn stores one message as the agent runtime does.
func sayIn(t testing.TB, db *DB, chat, role string, at time.Time, content any) int64 {
	t.Helper()
	b, err := json.Marshal(content)
	if err != nil {
		t.Fatal(err)
	}
	id, err := db.AppendMessage(context.Background(), store.Message{Chat: chat, Agent: "default", Role: role, Content: b, CreatedAt: at})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

type textMsg struct {
	Role        string `json:"role"`
	Text        string `json:"text,omitempty"`
	ToolResults []struct {
		CallID  string `json:"call_id"`
		Content string `json:"content"`
		IsError bool   `json:"is_error,omitempty"`
	} `json:"tool_results,omitempty"`
}

func owner(text string) textMsg { return textMsg{Role: "user", Text: text} }
func agent(text string) textMsg { return textMsg{Role: "assistant", Text: text} }
func toolSaid(content string, failed bool) textMsg {
	m := textMsg{Role: "user"}
	m.ToolResults = append(m.ToolResults, struct {
		CallID  string `json:"call_id"`
		Content string `json:"content"`
		IsError bool   `json:"is_error,omitempty"`
	}{"c1", content, failed})
	return m
}

// TestRecallSearchA6: everything said is found by its words in their
// English and German inflections, ranked, with the chat, the time and who
// said it, and narrowed by chat, time and limit; the wiki's notes are
// found, replaced and forgotten with them.
func TestRecallSearchA6(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	t0 := time.Date(2026, 10, 14, 9, 0, 0, 0, time.UTC)
	sayIn(t, db, "telegram:1", "user", t0, owner("My landlord said the heating gets fixed on Thursday"))
	sayIn(t, db, "telegram:1", "assistant", t0.Add(time.Minute), agent("Noted: the landlord fixes the heating on Thursday."))
	sayIn(t, db, "telegram:1", "user", t0.Add(24*time.Hour), owner("Die Termine beim Zahnarzt sind im November"))
	sayIn(t, db, "discord:9", "user", t0.Add(48*time.Hour), owner("Send the invoices to the accountant"))
	sayIn(t, db, "discord:9", "user", t0.Add(49*time.Hour), toolSaid("Found 3 invoices from the plumber, the largest 240 EUR", false))
	sayIn(t, db, "discord:9", "user", t0.Add(50*time.Hour), toolSaid("invoice server unreachable", true))
	sayIn(t, db, "discord:9", "assistant", t0.Add(50*time.Hour), textMsg{Role: "assistant"}) // bare tool calls say nothing
	if err := db.IndexNote(ctx, "home/flat", "Flat", "# Flat\nThe landlord is Mr Berger, phone 0171 555.\n", t0.Add(72*time.Hour)); err != nil {
		t.Fatal(err)
	}

	type hit struct{ who, chat, snippetHas string }
	tests := []struct {
		name  string
		query string
		f     store.RecallFilter
		want  []hit // in order; snippetHas must be in the snippet
	}{
		{"plural finds singular and the note", "landlords heating", store.RecallFilter{},
			[]hit{{"owner", "telegram:1", "landlord said"}, {"agent", "telegram:1", "landlord fixes"}, {"wiki", "", "Mr Berger"}}},
		{"function words are dropped", "what did I tell you about the heating", store.RecallFilter{},
			[]hit{{"owner", "telegram:1", "heating"}, {"agent", "telegram:1", "heating"}}},
		{"German inflection", "Termin Zahnarzt", store.RecallFilter{}, []hit{{"owner", "telegram:1", "Termine beim Zahnarzt"}}},
		{"diacritics and case are folded", "TERMINE", store.RecallFilter{}, []hit{{"owner", "telegram:1", "Termine"}}},
		{"tool results, failures left out", "invoice", store.RecallFilter{},
			[]hit{{"tool", "discord:9", "3 invoices"}, {"owner", "discord:9", "invoices to the accountant"}}},
		{"one chat, no notes", "landlord", store.RecallFilter{Chat: "telegram:1"},
			[]hit{{"owner", "telegram:1", "landlord"}, {"agent", "telegram:1", "landlord"}}},
		{"since", "landlord", store.RecallFilter{Since: t0.Add(time.Minute)},
			[]hit{{"wiki", "", "landlord"}, {"agent", "telegram:1", "landlord"}}},
		{"until", "landlord", store.RecallFilter{Until: t0.Add(time.Minute)}, []hit{{"owner", "telegram:1", "landlord"}}},
		{"limit", "landlord", store.RecallFilter{Limit: 1}, []hit{{"", "", "landlord"}}},
		{"nothing said", "submarine", store.RecallFilter{}, nil},
		{"function words alone", "what was it", store.RecallFilter{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.Search(ctx, tt.query, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("Search(%q) gave %d hits, want %d: %+v", tt.query, len(got), len(tt.want), got)
			}
			// Order is the ranking's business (TestRecallRankingA6): each
			// wanted hit must be among those found.
			used := make([]bool, len(got))
			for _, w := range tt.want {
				found := false
				for i, g := range got {
					if used[i] || w.who != "" && (g.Who != w.who || g.Chat != w.chat) || !strings.Contains(g.Snippet, w.snippetHas) {
						continue
					}
					if g.At.IsZero() || g.Ref == "" {
						t.Errorf("hit %d has no time or ref: %+v", i, g)
					}
					used[i], found = true, true
					break
				}
				if !found {
					t.Errorf("no hit by %s in %q with %q among %+v", w.who, w.chat, w.snippetHas, got)
				}
			}
		})
	}

	// A rewritten note is found by its new words only; a deleted one not
	// at all.
	if err := db.IndexNote(ctx, "home/flat", "Flat", "# Flat\nWe moved out in December.\n", t0.Add(96*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Search(ctx, "Berger", store.RecallFilter{}); len(got) != 0 {
		t.Errorf("the rewritten note is still found by its old words: %+v", got)
	}
	if got, _ := db.Search(ctx, "moved", store.RecallFilter{}); len(got) != 1 || got[0].Ref != "home/flat" || got[0].Kind != store.RecallNote {
		t.Errorf("the rewritten note is not found by its new words: %+v", got)
	}
	if err := db.ForgetNote(ctx, "home/flat"); err != nil {
		t.Fatal(err)
	}
	if err := db.ForgetNote(ctx, "home/flat"); err != nil {
		t.Errorf("forgetting a note twice: %v", err)
	}
	if got, _ := db.Search(ctx, "moved", store.RecallFilter{}); len(got) != 0 {
		t.Errorf("a deleted note is still found: %+v", got)
	}
}

// TestRecallRankingA6: a message with more of the query's words, and
// rarer ones, comes before one with a single common word.
func TestRecallRankingA6(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	t0 := time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)
	for i := range 20 {
		sayIn(t, db, "telegram:1", "user", t0.Add(time.Duration(i)*time.Minute), owner(fmt.Sprintf("the car needs washing, note %d", i)))
	}
	sayIn(t, db, "telegram:1", "user", t0.Add(-time.Hour), owner("The car's MOT inspection is due in March"))
	got, err := db.Search(ctx, "car inspection", store.RecallFilter{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || !strings.Contains(got[0].Snippet, "inspection") {
		t.Errorf("the message with both words is not first: %+v", got)
	}
}

// TestRecallRecentA6: a chat's latest messages, newest first, with who
// said them.
func TestRecallRecentA6(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	t0 := time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)
	sayIn(t, db, "telegram:1", "user", t0, owner("first"))
	sayIn(t, db, "telegram:1", "assistant", t0.Add(time.Second), agent("second"))
	sayIn(t, db, "discord:9", "user", t0.Add(2*time.Second), owner("elsewhere"))
	sayIn(t, db, "telegram:1", "user", t0.Add(3*time.Second), owner("third"))
	got, err := db.Recent(ctx, store.RecallFilter{Chat: "telegram:1", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	for _, h := range got {
		said = append(said, h.Who+":"+h.Snippet)
	}
	if want := []string{"owner:third", "agent:second"}; !slices.Equal(said, want) {
		t.Errorf("Recent gave %v, want %v", said, want)
	}
	all, err := db.Recent(ctx, store.RecallFilter{})
	if err != nil || len(all) != 4 || all[0].Chat != "telegram:1" || all[1].Chat != "discord:9" {
		t.Errorf("Recent over every chat: %+v, %v", all, err)
	}
}

// TestRecallBackfillA6: history stored before the index existed is not
// found until it is indexed; IndexHistory indexes it in batches, newest
// first, keeps its progress across a reopen (a restart), and then finds
// it; messages stored meanwhile are indexed as they come.
func TestRecallBackfillA6(t *testing.T) {
	ctx := context.Background()
	migs, err := loadMigrations(migrationFiles, testDialect())
	if err != nil {
		t.Fatal(err)
	}
	before := fstest.MapFS{}
	for _, m := range migs {
		if m.version < 32 {
			before["migrations/"+testDialect().String()+"/"+m.name] = migrationFile(t, m)
		}
	}
	path := testTarget(t)
	old, err := open(ctx, path, before)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 9, 1, 8, 0, 0, 0, time.UTC)
	const n = 7
	for i := range n {
		text := fmt.Sprintf("filler message %d", i)
		if i == 1 {
			text = "The spare key is under the blue flowerpot"
		}
		b, _ := json.Marshal(owner(text))
		if _, err := old.db.ExecContext(ctx, `INSERT INTO messages (chat, agent, role, content, created_at) VALUES (?, ?, ?, ?, ?)`,
			"telegram:1", "default", "user", string(b), formatTime(t0.Add(time.Duration(i)*time.Minute))); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()

	db := openTest(t, path)
	sayIn(t, db, "telegram:1", "user", t0.Add(time.Hour), owner("Where did I put the flowerpot?"))
	if got, _ := db.Search(ctx, "key", store.RecallFilter{}); len(got) != 0 {
		t.Fatalf("unindexed history found before indexing: %+v", got)
	}
	p, err := db.IndexHistory(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	if p.Indexed != 3 || p.Total != n || p.Done {
		t.Errorf("after one batch: %+v, want 3 of %d indexed", p, n)
	}
	db.Close()

	db = openTest(t, path) // a restart resumes where it stopped
	for !p.Done {
		if p, err = db.IndexHistory(ctx, 3); err != nil {
			t.Fatal(err)
		}
	}
	if p.Indexed != n || p.Total != n {
		t.Errorf("when done: %+v, want all %d", p, n)
	}
	got, err := db.Search(ctx, "keys flowerpot", store.RecallFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !slices.ContainsFunc(got, func(h store.RecallHit) bool {
		return strings.Contains(h.Snippet, "spare key") && h.At.Equal(t0.Add(time.Minute)) && h.Chat == "telegram:1"
	}) {
		t.Errorf("after indexing: %+v, want the key and the question", got)
	}
	if again, err := db.IndexHistory(ctx, 3); err != nil || !again.Done || again.Indexed != n {
		t.Errorf("once done, IndexHistory gives %+v, %v", again, err)
	}
	if all, _ := db.Recent(ctx, store.RecallFilter{Limit: 100}); len(all) != n+1 {
		t.Errorf("%d messages indexed, want %d (none twice)", len(all), n+1)
	}
}

// TestRecallSnippet: the snippet is cut around the first matching word, at
// word boundaries, on one line.
func TestRecallSnippet(t *testing.T) {
	long := strings.Repeat("lorem ipsum ", 30) + "the Rechnungen\nfrom Müller " + strings.Repeat("dolor sit ", 30)
	s := snippet(long, map[string]bool{"rechnung": true})
	if !strings.HasPrefix(s, "…") || !strings.HasSuffix(s, "…") || !strings.Contains(s, "the Rechnungen from Müller") || len(s) > 260 {
		t.Errorf("snippet %q", s)
	}
	if s := snippet("short text", nil); s != "short text" {
		t.Errorf("snippet without words: %q", s)
	}
}

// BenchmarkRecallSearch: one search over 10,000 messages, for a fact said
// once, for words in thousands of messages, and in German (go test -bench
// RecallSearch -benchmem ./store/sqlstore; JARVIS_TEST_STORE=postgres for
// PostgreSQL).
func BenchmarkRecallSearch(b *testing.B) {
	ctx := context.Background()
	target := filepath.Join(b.TempDir(), "jarvisbot.db")
	if onPostgres() {
		target = pgtest.Fresh(b, "bench")
	}
	db, err := Open(ctx, target)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	vocab := strings.Fields("garden invoice landlord heating dentist appointment train ticket birthday present recipe " +
		"Rechnung Vermieter Heizung Zahnarzt Termin Zug Fahrkarte Geburtstag Geschenk Rezept meeting project deadline " +
		"holiday flight hotel car insurance doctor pharmacy groceries milk bread coffee weather rain sunny")
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 10000 {
		var sb strings.Builder
		for j := range 12 {
			sb.WriteString(vocab[(i*7+j*13+i/3)%len(vocab)])
			sb.WriteByte(' ')
		}
		role, m := "user", owner(sb.String())
		if i%2 == 1 {
			role, m = "assistant", agent(sb.String())
		}
		if i == 4321 {
			m = owner("The spare key for the shed is under the blue flowerpot")
		}
		sayIn(b, db, fmt.Sprintf("telegram:%d", i%5), role, t0.Add(time.Duration(i)*time.Minute), m)
	}
	if onPostgres() {
		// The statistics autovacuum keeps on a live database, which the
		// planner needs to choose between the index and a scan.
		if _, err := db.db.ExecContext(ctx, `ANALYZE recall_docs`); err != nil {
			b.Fatal(err)
		}
	}
	for _, q := range []struct{ name, query string }{
		{"rare", "where is the shed key"},      // a fact said once
		{"common", "landlord heating invoice"}, // words in thousands of messages
		{"german", "Rechnungen vom Vermieter"}, // inflected
	} {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := db.Search(ctx, q.query, store.RecallFilter{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestRecallFindsWhatADocumentSaysA6: a document's text is found in its
// chat by what it says, once however often the same file is indexed.
func TestRecallFindsWhatADocumentSaysA6(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, testTarget(t))
	at := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	for range 2 { // a retried turn indexes the same file again
		if err := db.IndexFile(ctx, "telegram:42", "default", "telegram:42/ab12", "contract.pdf", "Tenancy agreement. Notice period: three months.", at); err != nil {
			t.Fatal(err)
		}
	}
	hits, err := db.Search(ctx, "notice period", store.RecallFilter{Chat: "telegram:42"})
	if err != nil || len(hits) != 1 || hits[0].Kind != store.RecallFile || hits[0].Who != store.SaidByOwner || !hits[0].At.Equal(at) {
		t.Fatalf("hits %+v %v, want the contract once", hits, err)
	}
	if hits, _ = db.Search(ctx, "notice period", store.RecallFilter{Chat: "telegram:7"}); len(hits) != 0 {
		t.Errorf("another chat found the contract: %+v", hits)
	}
}
