package main

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
)

// TestDashboardSetsBudgetsA5W1: the Agents tab links the budget form; it
// shows the config's limit and what was spent; a limit set there (with
// the CSRF token only) wins over the config's, and the message the budget
// held is answered at once; a limit without its unit is refused saying
// what to write; an emptied field gives the config's limit back.
func TestDashboardSetsBudgetsA5W1(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	e.writeConfig(t, "prices:\n  test-model: {input: 1}\nbudgets:\n  agents:\n    default: {daily: $1}\n")
	b, _, stop := serveWithDashboard(t, e)
	defer stop()

	f.Push(fakellm.Step{Text: "First.", Usage: fakellm.Usage{InputTokens: 1_200_000}})
	tg.SendText(42, 42, "one")
	waitSent(t, tg, "the first answer", func(s []faketelegram.Sent) bool { return hasText(s, 42, "First.") })
	tg.SendText(42, 42, "two")
	waitSent(t, tg, "the stop", func(s []faketelegram.Sent) bool { return hasText(s, 42, "I did not start") })

	if _, body := b.get("/agents"); !strings.Contains(body, `href="/budgets"`) {
		t.Fatalf("the Agents tab does not link the budgets:\n%s", body)
	}
	code, body := b.get("/budgets")
	row := body[strings.Index(body, `id="budget-default-day"`):]
	row = row[:strings.Index(row, "</tr>")]
	if code != http.StatusOK || !strings.Contains(row, "$1.00") || !strings.Contains(row, "$1.20 of $1.00") || !strings.Contains(row, "the config's") {
		t.Fatalf("budgets: %d\n%s", code, row)
	}
	if !strings.Contains(body, `id="budget--month"`) || !strings.Contains(body, "the whole installation") {
		t.Errorf("the whole installation's limits are not shown:\n%s", body)
	}

	token := b.csrf
	b.csrf = ""
	if res := b.post("/budgets", url.Values{"agent": {"default"}, "period": {"day"}, "limit": {"$5"}}); res.StatusCode != http.StatusForbidden {
		t.Errorf("a change without the CSRF token: %s", res.Status)
	}
	b.csrf = token
	if res := b.post("/budgets", url.Values{"agent": {"default"}, "period": {"day"}, "limit": {"5"}}); res.StatusCode != http.StatusBadRequest {
		t.Errorf("a limit without its unit: %s", res.Status)
	}
	if n := len(f.Requests()); n != 1 {
		t.Fatalf("%d model calls before the limit was raised", n)
	}

	f.Push(fakellm.Step{Text: "Second, now."})
	if res := b.post("/budgets", url.Values{"agent": {"default"}, "period": {"day"}, "limit": {"$5"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("setting the limit: %s", res.Status)
	}
	if note := b.note("/budgets"); note != "The daily budget of agent default is now $5.00." {
		t.Errorf("note %q", note)
	}
	waitSent(t, tg, "the held message answered", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Second, now.") })

	if res := b.post("/budgets", url.Values{"agent": {"default"}, "period": {"day"}, "limit": {""}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("clearing the limit: %s", res.Status)
	}
	if note := b.note("/budgets"); note != "The daily budget of agent default is the config's again: $1.00." {
		t.Errorf("note %q", note)
	}
}
