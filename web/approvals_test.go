package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents/approvals"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// engineOver is the Approvals tab over a real approvals engine, deciding
// as by.
type engineOver struct {
	db *sqlstore.DB
	e  *approvals.Engine
	by string
}

func approvalOf(a store.Approval) Approval {
	return Approval{ID: a.ID, Agent: a.Agent, Tool: a.Tool, Summary: a.Summary, Chat: a.Chat, Asked: a.CreatedAt, Expires: a.ExpiresAt}
}

func (o engineOver) Pending(ctx context.Context) ([]Approval, error) {
	list, err := o.db.PendingApprovals(ctx)
	var out []Approval
	for _, a := range list {
		out = append(out, approvalOf(a))
	}
	return out, err
}

func (o engineOver) Decide(ctx context.Context, id string, d Decision) (Decided, error) {
	a, err := o.e.Decide(ctx, id, o.by, d != Deny, d == Always)
	got := Decided{Approval: approvalOf(a), State: string(a.State), Always: a.Always, By: a.DecidedBy, At: a.DecidedAt}
	if jarvisbot.ErrorCode(err) == jarvisbot.ECONFLICT {
		got.Already, err = true, nil
	}
	return got, err
}

func (o engineOver) Request(ctx context.Context, id string) (Decided, error) {
	a, err := o.db.Approval(ctx, id)
	got := Decided{Approval: approvalOf(a), State: string(a.State), Always: a.Always, By: a.DecidedBy, At: a.DecidedAt}
	got.Args = string(a.Args)
	return got, err
}

func (o engineOver) Grants(ctx context.Context) ([]string, error) { return o.db.Grants(ctx) }

func (o engineOver) Revoke(ctx context.Context, tool string) (string, error) {
	return tool + " asks for your approval again.", o.e.Revoke(ctx, tool)
}

// noteOf is the note a change left for the next page.
func noteOf(res *http.Response) string {
	if c := cookieOf(res, flashCookie); c != nil {
		return decodeNote(c.Value)
	}
	return ""
}

// cookieOf is the cookie named name that res sets, or nil.
func cookieOf(res *http.Response, name string) *http.Cookie {
	var got *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == name {
			got = c
		}
	}
	return got
}

func newEngine(t *testing.T, clk clock.Clock) (*sqlstore.DB, *approvals.Engine) {
	t.Helper()
	db := openStore(t)
	e := approvals.New(approvals.Options{Store: db, Clock: clk, Approvers: []string{"web:owner", "telegram:42"}})
	t.Cleanup(e.Close)
	return db, e
}

// TestApprovalsPageDecidesOnceC2W1: a pending request is listed as the
// chat shows it, with Approve, Deny and Always buttons in a form that
// posts; the list polls itself. A press decides through the engine as the
// signed-in owner; a second decision (here the chat's, then the
// browser's again) finds it decided and is told so, not failed.
func TestApprovalsPageDecidesOnceC2W1(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC))
	db, e := newEngine(t, clk)
	d, sess, csrf := dashboardSignedIn(t, Options{Approvals: engineOver{db, e, "web:owner"}})
	ctx := context.Background()
	a, err := e.Ask(ctx, approvals.Request{Tool: "cli:echo", Summary: `Run cli:echo with {"args":["hi"]}`, Args: []byte(`{"args":["hi"]}`), Agent: "default", Chat: "telegram:42"})
	if err != nil {
		t.Fatal(err)
	}

	body := d.page(t, "/approvals", sess)
	wantIn(t, "the page", body, `id="approval-`+a.ID+`"`, `action="/approvals/`+a.ID+`"`, `method="post"`,
		`name="decision" value="approve"`, `name="decision" value="deny"`, `name="decision" value="always"`,
		`Run cli:echo with {&#34;args&#34;:[&#34;hi&#34;]}`, "telegram:42", "default", `name="csrf" value="`+csrf+`"`,
		`hx-get="/approvals/list"`, `hx-trigger="every 3s"`)
	if res, block := d.get(t, "/approvals/list", sess); res.StatusCode != http.StatusOK || !strings.Contains(block, `id="approval-`+a.ID+`"`) || strings.Contains(block, "<html") {
		t.Errorf("the polled block: %s\n%s", res.Status, block)
	}

	res := d.post(t, "/approvals/"+a.ID, url.Values{"csrf": {csrf}, "decision": {"approve"}}, sess, "")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/approvals" || !strings.HasPrefix(noteOf(res), "Approved: Run cli:echo") {
		t.Fatalf("approve: %s, note %q", res.Status, noteOf(res))
	}
	got, err := db.Approval(ctx, a.ID)
	if err != nil || got.State != store.ApprovalApproved || got.DecidedBy != "web:owner" {
		t.Fatalf("after the press: %+v, %v", got, err)
	}
	if _, body := d.get(t, "/approvals", sess); strings.Contains(body, `id="approval-`+a.ID+`"`) {
		t.Error("a decided request is still listed")
	}
	// The chat's button comes second: the engine refuses it...
	if _, err := e.Decide(ctx, a.ID, "telegram:42", false, false); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
		t.Errorf("the chat's second decision: %v", err)
	}
	// ...and so a second browser press is a note that says who decided.
	res = d.post(t, "/approvals/"+a.ID, url.Values{"csrf": {csrf}, "decision": {"deny"}}, sess, "")
	if note := noteOf(res); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(note, "Already decided: approved by web:owner") {
		t.Errorf("a second press: %s, note %q", res.Status, note)
	}

	// The chat decides first, then the browser presses.
	b, _ := e.Ask(ctx, approvals.Request{Tool: "cli:echo", Summary: "Run cli:echo", Args: []byte(`{}`), Agent: "default", Chat: "telegram:42"})
	if _, err := e.Decide(ctx, b.ID, "telegram:42", false, false); err != nil {
		t.Fatal(err)
	}
	res = d.post(t, "/approvals/"+b.ID, url.Values{"csrf": {csrf}, "decision": {"approve"}}, sess, "")
	if note := noteOf(res); !strings.HasPrefix(note, "Already decided: denied by telegram:42") {
		t.Errorf("pressed after the chat: note %q", note)
	}
	// A request that expired is decided by its expiry.
	c, _ := e.Ask(ctx, approvals.Request{Tool: "cli:echo", Summary: "Run cli:echo late", Args: []byte(`{}`), Agent: "default", Chat: "telegram:42"})
	clk.Advance(approvals.DefaultTTL + time.Second)
	res = d.post(t, "/approvals/"+c.ID, url.Values{"csrf": {csrf}, "decision": {"approve"}}, sess, "")
	if note := noteOf(res); !strings.Contains(note, "expired and was denied") {
		t.Errorf("pressed after the expiry: note %q", note)
	}

	for _, tc := range []struct {
		name, id, decision string
		want               int
	}{
		{"no decision", a.ID, "", http.StatusBadRequest},
		{"an unknown decision", a.ID, "maybe", http.StatusBadRequest},
		{"an unknown request", "nosuchrequest", "approve", http.StatusNotFound},
	} {
		if res := d.post(t, "/approvals/"+tc.id, url.Values{"csrf": {csrf}, "decision": {tc.decision}}, sess, ""); res.StatusCode != tc.want {
			t.Errorf("%s: %s, want %d", tc.name, res.Status, tc.want)
		}
	}
	if res := d.post(t, "/approvals/"+a.ID, url.Values{"decision": {"approve"}}, sess, ""); res.StatusCode != http.StatusForbidden {
		t.Errorf("a press without the CSRF token: %s", res.Status)
	}
}

// TestAlwaysGrantsAreListedAndRevokedC2: Always approves and grants the
// tool, which the page then lists with Revoke; revoking makes it ask
// again, in the CLI's words.
func TestAlwaysGrantsAreListedAndRevokedC2(t *testing.T) {
	db, e := newEngine(t, nil)
	d, sess, csrf := dashboardSignedIn(t, Options{Approvals: engineOver{db, e, "web:owner"}})
	ctx := context.Background()
	if _, body := d.get(t, "/approvals", sess); !strings.Contains(body, "No approval requests are waiting.") || !strings.Contains(body, "No tool runs without asking") {
		t.Errorf("an empty page:\n%s", body)
	}
	a, _ := e.Ask(ctx, approvals.Request{Tool: "mcp:github/merge", Summary: "Run merge on github", Args: []byte(`{}`), Agent: "coder", Chat: "telegram:42"})
	res := d.post(t, "/approvals/"+a.ID, url.Values{"csrf": {csrf}, "decision": {"always"}}, sess, "")
	if note := noteOf(res); !strings.HasPrefix(note, "Approved, always for this tool") {
		t.Errorf("always: note %q", note)
	}
	if ok, _ := db.Granted(ctx, "mcp:github/merge"); !ok {
		t.Fatal("Always granted nothing")
	}
	_, body := d.get(t, "/approvals", sess)
	if !strings.Contains(body, `id="revoke-mcp:github/merge"`) || !strings.Contains(body, `name="tool" value="mcp:github/merge"`) {
		t.Errorf("the grant is not listed with Revoke:\n%s", body)
	}
	res = d.post(t, "/approvals/grants/revoke", url.Values{"csrf": {csrf}, "tool": {"mcp:github/merge"}}, sess, "")
	if note := noteOf(res); res.StatusCode != http.StatusSeeOther || note != "mcp:github/merge asks for your approval again." {
		t.Errorf("revoke: %s, note %q", res.Status, note)
	}
	if ok, _ := db.Granted(ctx, "mcp:github/merge"); ok {
		t.Error("the grant outlived its revoking")
	}
	if res := d.post(t, "/approvals/grants/revoke", url.Values{"csrf": {csrf}}, sess, ""); res.StatusCode != http.StatusBadRequest {
		t.Errorf("revoking no tool: %s", res.Status)
	}
}
