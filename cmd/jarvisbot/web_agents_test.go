package main

import (
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestDashboardAddsAgentsWithTheirFocusA1C6: an agent added in the
// dashboard gets its focus from the live catalog as `agents add` gives it
// and says so in the CLI's words; the CLI sees the agent and the
// dashboard's edits; the default agent cannot be removed, another can.
func TestDashboardAddsAgentsWithTheirFocusA1C6(t *testing.T) {
	e, _, tg := ownerOnTelegram(t) // a channel that keeps serve running
	b, _, stop := serveWithDashboard(t, e)
	defer stop()

	if code, body := b.get("/agents"); code != http.StatusOK || !strings.Contains(body, `id="agent-add"`) || !strings.Contains(body, `href="/agents/default"`) {
		t.Fatalf("agents: %d\n%s", code, body)
	}
	res := b.post("/agents", url.Values{"name": {"scribe"}, "description": {"looks after the notes in my wiki"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/agents/scribe" {
		t.Fatalf("add: %s to %q", res.Status, res.Header.Get("Location"))
	}
	if note := b.note("/agents/scribe"); !strings.HasPrefix(note, "Added agent:\nscribe: looks after the notes in my wiki") || !strings.Contains(note, "focus: builtin:wiki") {
		t.Errorf("add: note %q", note)
	}
	if _, page := b.get("/agents/scribe"); !strings.Contains(page, `<dd id="agent-focus">builtin:wiki</dd>`) {
		t.Errorf("the agent's page does not show its focus:\n%s", page)
	}
	if code, out, _ := e.jarvis(t, "", "agents", "show", "scribe"); code != 0 || !strings.Contains(out, "focus: builtin:wiki") {
		t.Errorf("the CLI does not see the agent: %d\n%s", code, out)
	}

	res = b.post("/agents/scribe", url.Values{"description": {"looks after the notes in my wiki"}, "allow": {""}, "block": {"cli:*"}, "provider": {""}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("edit: %s", res.Status)
	}
	if note := b.note("/agents/scribe"); !strings.Contains(note, "block: cli:*") || !strings.Contains(note, "focus: builtin:wiki") {
		t.Errorf("edit: note %q", note)
	}
	if _, out, _ := e.jarvis(t, "", "agents", "show", "scribe"); !strings.Contains(out, "block: cli:*") {
		t.Errorf("the CLI does not see the edit:\n%s", out)
	}

	// A store plugin the description names is focus before it is
	// installed; the page says so and offers the install.
	if res := b.post("/agents", url.Values{"name": {"inbox"}, "description": {"a daily overview of my Gmail inbox"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("add inbox: %s", res.Status)
	}
	if note := b.note("/agents/inbox"); !strings.Contains(note, "plugin:gmail is not installed") || !strings.Contains(note, "jarvisbot plugins install gmail") {
		t.Errorf("add inbox: note %q", note)
	}
	if _, page := b.get("/agents/inbox"); !strings.Contains(page, `id="agent-missing"`) || !strings.Contains(page, `href="/plugins/gmail#install"`) {
		t.Errorf("the agent's page does not offer to install Gmail:\n%s", page)
	}

	// The agent's page switches a chat to it, as /agent inbox there does,
	// and takes the switch back.
	if res := b.post("/agents/inbox/chats", url.Values{"chat": {"telegram:42"}, "do": {"switch"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("switching a chat: %s", res.Status)
	}
	if note := b.note("/agents/inbox"); note != "Agent inbox answers telegram:42 from now on." {
		t.Errorf("switching a chat: note %q", note)
	}
	if _, page := b.get("/agents/inbox"); !strings.Contains(page, `data-chat="telegram:42"`) || !strings.Contains(page, "switched to it") {
		t.Errorf("the agent's page does not list the chat switched to it:\n%s", page)
	}
	tg.SendText(42, 42, "/agent")
	waitSent(t, tg, "/agent after the dashboard's switch", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Agent inbox answers this chat.") })
	if res := b.post("/agents/inbox/chats", url.Values{"chat": {"whatsapp:1"}, "do": {"switch"}}); res.StatusCode != http.StatusBadRequest {
		t.Errorf("switching a chat that is none: %s", res.Status)
	}
	if res := b.post("/agents/inbox/chats", url.Values{"chat": {"telegram:42"}, "do": {"release"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("taking the switch back: %s", res.Status)
	}
	if _, page := b.get("/agents/inbox"); !strings.Contains(page, `id="agent-chats-none"`) {
		t.Errorf("the switch is still listed after it was taken back")
	}

	if res := b.post("/agents/default/remove", url.Values{}); res.StatusCode != http.StatusBadRequest {
		t.Errorf("removing the default agent: %s", res.Status)
	}
	if res := b.post("/agents/scribe/remove", url.Values{}); res.StatusCode != http.StatusSeeOther {
		t.Errorf("remove: %s", res.Status)
	}
	if note := b.note("/agents"); note != "Removed agent scribe." {
		t.Errorf("remove: note %q", note)
	}
	if code, _, _ := e.jarvis(t, "", "agents", "show", "scribe"); code == 0 {
		t.Error("the CLI still sees the removed agent")
	}
}
