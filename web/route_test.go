package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/jarvisbot/jarvisbot"
)

// routeDesk answers every message with one explanation, and remembers
// what it was asked.
type routeDesk struct {
	mu    sync.Mutex
	asked [][2]string // agent, message
	ans   RouteAnswer
}

func (r *routeDesk) Agents(context.Context) ([]string, string, error) {
	return []string{"default", "planner"}, "default", nil
}

func (r *routeDesk) Explain(_ context.Context, agent, msg string) (RouteAnswer, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, [2]string{agent, msg})
	if agent != "default" && agent != "planner" {
		return RouteAnswer{}, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no agent named %q (add it under agents: in the config, or use --agent default)", agent)
	}
	a := r.ans
	a.Message, a.Agent = msg, agent
	return a, nil
}

func (r *routeDesk) questions() [][2]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][2]string(nil), r.asked...)
}

var explained = RouteAnswer{
	Focus: []string{"mcp:tracker/*"},
	Servers: []RouteServer{
		{Server: "tracker", Offered: true, Tools: 2, Because: `words "ticket" matched its card (score 2.5)`},
		{Server: "notes-server", Offered: false, Because: "no word of the message matched it (score 0)"},
	},
	OnRequest: []string{"notes-server"},
	Tools: []RouteTool{
		{N: 1, ID: "builtin:wiki", Tier: "monitor; list, read: safe", Class: "monitor"},
		{N: 2, ID: "mcp:tracker/open_ticket", Tier: "ask", Class: "ask", PerTurn: true},
		{N: 3, ID: "mcp:tracker/list_tickets", Tier: "safe", Class: "safe"},
	},
	SchemaTokens: 321,
	Withheld:     []RouteWithheld{{Reason: "never-list", IDs: []string{"mcp:tracker/spawn_helper"}, More: 4}},
	Skills:       []RouteSkill{{ID: "plugin:tracker/manual", Plugin: "tracker", Score: 0.8125, Entry: "instructions", Tie: "won the tie with other-tracker: preferred by the owner"}},
}

// TestRouteFormW1C7: the Route page is a form (a message and a choice of
// agent, the default chosen) that asks nothing before a message is given.
func TestRouteFormW1C7(t *testing.T) {
	desk := &routeDesk{ans: explained}
	d := newDashboard(t, Options{Route: desk})
	sess := d.signIn(t)
	body := d.page(t, "/route", sess)
	wantIn(t, "the form", body, `id="route-form"`, `method="get" action="/route"`, `name="message"`, `name="agent"`,
		`<option value="default" selected>`, `<option value="planner">`, `hx-get="/route"`, `hx-target="#route-result"`, `id="route-result"`)
	wantNotIn(t, "the form", body, `id="route-servers"`)
	if q := desk.questions(); len(q) != 0 {
		t.Errorf("asked %v without a message", q)
	}

	none := newDashboard(t, Options{})
	if res, _ := none.get(t, "/route", none.signIn(t)); res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("no backend: %s", res.Status)
	}
}

// TestRouteExplainsAMessageW1C7: a message (and an agent) given, the
// page shows what route says: servers offered or not and why, the tools
// in order with their tiers and where the cached prefix ends, what is
// withheld, the skills joined; htmx gets the result block alone; an
// error is shown as route words it, the form kept.
func TestRouteExplainsAMessageW1C7(t *testing.T) {
	desk := &routeDesk{ans: explained}
	d := newDashboard(t, Options{Route: desk})
	sess := d.signIn(t)
	msg := "open a ticket about the broken <b>login</b>"
	q := "/route?" + url.Values{"message": {msg}, "agent": {"planner"}}.Encode()
	res, body := d.get(t, q, sess)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", q, res.Status)
	}
	if got := desk.questions(); len(got) != 1 || got[0] != [2]string{"planner", msg} {
		t.Fatalf("asked %v", got)
	}
	wantIn(t, "the explanation", body,
		"open a ticket about the broken &lt;b&gt;login&lt;/b&gt;", `<option value="planner" selected>`,
		`id="route-agent-name">planner<`, "focus: mcp:tracker/*",
		`data-server="tracker" data-offered="true"`, `words &#34;ticket&#34; matched its card (score 2.5)`,
		`data-server="notes-server" data-offered="false"`, "no word of the message matched it",
		"On request (the model can ask for their tools): notes-server",
		"(3, ~321 schema tokens)",
		`data-tool="builtin:wiki"`, `class="tier-monitor">monitor; list, read: safe<`,
		`class="route-split"`, `data-tool="mcp:tracker/open_ticket"`, `class="tier-ask">ask<`,
		"never-list:</strong> mcp:tracker/spawn_helper and 4 more",
		`data-skill="plugin:tracker/manual"`, "0.81", "instructions", "won the tie with other-tracker")
	if strings.Index(body, `data-tool="builtin:wiki"`) > strings.Index(body, `class="route-split"`) ||
		strings.Index(body, `class="route-split"`) > strings.Index(body, `data-tool="mcp:tracker/open_ticket"`) {
		t.Errorf("the cached prefix does not end before the first per-turn tool:\n%s", body)
	}
	wantNotIn(t, "the explanation", body, "<b>login</b>")

	res, block := d.getHX(t, q, routeResult, sess)
	if res.StatusCode != http.StatusOK || strings.Contains(block, "<html") || strings.Contains(block, `id="route-form"`) ||
		!strings.HasPrefix(strings.TrimSpace(block), `<div id="route-result">`) || !strings.Contains(block, `data-tool="mcp:tracker/list_tickets"`) {
		t.Errorf("the htmx block: %s\n%s", res.Status, block)
	}

	_, body = d.get(t, "/route?"+url.Values{"message": {msg}, "agent": {"nobody"}}.Encode(), sess)
	wantIn(t, "an unknown agent", body, `class="error"`, "no agent named &#34;nobody&#34;", `id="route-form"`)
	wantNotIn(t, "an unknown agent", body, `id="route-servers"`)
}
