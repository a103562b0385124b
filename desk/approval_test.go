package desk

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jarvisbot/jarvisbot/store"
)

// TestRequestTextCH2: a request's message says what will happen (the
// runtime's summary), who asked, when it expires in the owner's zone with
// its name, and links to the dashboard's page of the request when the
// dashboard's address is known; data cannot turn into Markdown (a masked
// link, a spoiler), and the whole fits Discord's 2,000 characters.
func TestRequestTextCH2(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	asked := time.Date(2026, 12, 5, 13, 55, 0, 0, time.UTC)
	base := store.Approval{ID: "abc", Agent: "default", Tool: "builtin:wiki", CreatedAt: asked, ExpiresAt: asked.Add(10 * time.Minute),
		Summary: "Create the wiki page groceries\nPage: groceries\nText:\n  milk"}
	cases := []struct {
		name string
		opt  Options
		a    func(a store.Approval) store.Approval
		want string
	}{
		{"owner's zone and link", Options{Zone: berlin, DashboardURL: "https://jarvis.example.com/"}, nil,
			"Approval needed: Create the wiki page groceries\nPage: groceries\nText:\n  milk\nAsked by agent default · builtin:wiki\nAll arguments: https://jarvis.example.com/approvals/abc\nApprove? It expires at 15:05 CET."},
		{"no dashboard address", Options{Zone: time.UTC}, nil,
			"Approval needed: Create the wiki page groceries\nPage: groceries\nText:\n  milk\nAsked by agent default · builtin:wiki\nApprove? It expires at 14:05 UTC."},
		{"expires on another day", Options{Zone: berlin}, func(a store.Approval) store.Approval {
			a.CreatedAt, a.ExpiresAt = time.Date(2026, 12, 5, 22, 55, 0, 0, time.UTC), time.Date(2026, 12, 5, 23, 5, 0, 0, time.UTC)
			return a
		}, "Approval needed: Create the wiki page groceries\nPage: groceries\nText:\n  milk\nAsked by agent default · builtin:wiki\nApprove? It expires at 00:05 CET (Sun 6 Dec)."},
		{"markdown in data is text", Options{Zone: time.UTC}, func(a store.Approval) store.Approval {
			a.Tool, a.Summary = "mcp:my_server/send", "Use the tool send of the MCP server my_server\ntext: [tap here](https://evil.example) ||secret|| *bold* `code`"
			return a
		}, "Approval needed: Use the tool send of the MCP server my\\_server\ntext: \\[tap here\\](https://evil.example) \\|\\|secret\\|\\| \\*bold\\* \\`code\\`\nAsked by agent default · mcp:my\\_server/send\nApprove? It expires at 14:05 UTC."},
		{"a turn an app's words were in", Options{Zone: time.UTC}, func(a store.Approval) store.Approval {
			a.Apps = []string{"ops", "ci_bot"}
			return a
		}, "Approval needed: Create the wiki page groceries\nPage: groceries\nText:\n  milk\nAsked by agent default for app ops, app ci\\_bot · builtin:wiki\nApprove? It expires at 14:05 UTC."},
		{"lines keep their markers", Options{Zone: time.UTC}, func(a store.Approval) store.Approval {
			a.Summary = "Create the wiki page groceries\nText:\n  # Groceries\n  - milk\n  2. eggs\n  > quoted"
			return a
		}, "Approval needed: Create the wiki page groceries\nText:\n  \\# Groceries\n  \\- milk\n  2\\. eggs\n  \\> quoted\nAsked by agent default · builtin:wiki\nApprove? It expires at 14:05 UTC."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := base
			if c.a != nil {
				a = c.a(a)
			}
			got := (&Desk{opt: c.opt}).requestText(a)
			if got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
	long := base
	long.Summary = strings.Repeat("_", 1500) // each escaped: twice as long
	got := (&Desk{opt: Options{DashboardURL: "https://jarvis.example.com"}}).requestText(long)
	if n := utf8.RuneCountInString(got); n > maxRequest || !strings.Contains(got, "/approvals/abc\nApprove? It expires at ") {
		t.Errorf("a long request is %d characters (Discord takes 2,000) or lost its tail:\n%s", n, got)
	}
}

// TestOutcomeSaysWhichAppDecidedX5: the edited approval message says which
// app decided over the MCP surface; the owner's and an expiry's read as
// before.
func TestOutcomeSaysWhichAppDecidedX5(t *testing.T) {
	cases := []struct {
		a    store.Approval
		want string
	}{
		{store.Approval{State: store.ApprovalDenied, DecidedBy: "app:auditor"}, "Denied by app auditor"},
		{store.Approval{State: store.ApprovalApproved, DecidedBy: "app:auditor", Always: true}, "Approved by app auditor, always for this tool"},
		{store.Approval{State: store.ApprovalDenied, DecidedBy: "telegram:42"}, "Denied"},
		{store.Approval{State: store.ApprovalApproved, DecidedBy: "console"}, "Approved"},
		{store.Approval{State: store.ApprovalExpired}, "Expired: nobody answered, so it was denied"},
	}
	for _, c := range cases {
		if got := outcome(c.a); got != c.want {
			t.Errorf("outcome(%s by %q) = %q, want %q", c.a.State, c.a.DecidedBy, got, c.want)
		}
	}
}
