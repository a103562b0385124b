package web

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/store"
)

var saidRE = regexp.MustCompile(`<tr class="said-hit"><td class="when">[^<]*</td><td>([^<]*)</td><td>([^<]*)</td><td class="wide">([^<]*)</td></tr>`)

// TestActivitySearchesWhatWasSaidA6: the Activity tab's search box finds
// what was said in any chat, best first, with the chat, who said it and
// a snippet, escaped; the board stays below it; a search that finds
// nothing says so.
func TestActivitySearchesWhatWasSaidA6(t *testing.T) {
	db := openStore(t)
	ctx := context.Background()
	for i, m := range []struct{ chat, role, text string }{
		{"telegram:42", "user", "The landlord <Mr Berger> wants the rent by the 3rd"},
		{"telegram:42", "assistant", "Noted: rent to the landlord by the 3rd."},
		{"discord:7", "user", "Pizza tonight?"},
	} {
		b, _ := json.Marshal(map[string]string{"role": m.role, "text": m.text})
		if _, err := db.AppendMessage(ctx, store.Message{Chat: m.chat, Agent: "default", Role: m.role, Content: b,
			CreatedAt: time.Date(2026, 10, 14, 9, i, 0, 0, time.UTC)}); err != nil {
			t.Fatal(err)
		}
	}
	record(t, db, "default", "builtin:memory", "ok")
	d := newDashboard(t, Options{Activity: boardOver{db}, Said: SaidSearch(&app.Installation{DB: db})})
	sess := d.signIn(t)

	body := d.page(t, "/activity", sess)
	wantIn(t, "the tab", body, `id="said-search"`, `name="q"`, `id="activity-rows"`)
	if strings.Contains(body, `id="said-hits"`) {
		t.Errorf("hits shown before any search:\n%s", body)
	}

	_, body = d.get(t, "/activity?q=landlords", sess)
	hits := saidRE.FindAllStringSubmatch(body, -1)
	if len(hits) != 2 {
		t.Fatalf("%d hits shown for landlords, want 2:\n%s", len(hits), body)
	}
	var who []string
	for _, h := range hits {
		if h[1] != "telegram:42" {
			t.Errorf("hit in chat %q, want telegram:42", h[1])
		}
		who = append(who, h[2])
	}
	if !strings.Contains(strings.Join(who, " "), "owner") || !strings.Contains(strings.Join(who, " "), "agent") {
		t.Errorf("hits by %v, want the owner's and the agent's", who)
	}
	wantIn(t, "the hits", body, "The landlord &lt;Mr Berger&gt; wants", `value="landlords"`, `id="activity-rows"`, "builtin:memory")

	_, body = d.get(t, "/activity?q=submarine", sess)
	wantIn(t, "a search that finds nothing", body, `id="said-none"`, "Nothing said matches")

	// Without the search (a dashboard built without it), no box.
	plain := newDashboard(t, Options{Activity: boardOver{db}})
	if body := plain.page(t, "/activity", plain.signIn(t)); strings.Contains(body, `id="said-search"`) {
		t.Errorf("a search box without a search behind it")
	}
}
