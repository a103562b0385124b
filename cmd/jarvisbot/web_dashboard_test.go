package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
)

// TestDashboardInABrowserW1 walks the dashboard in a real Chromium as the
// owner does: a link from the chat signs in; a plugin is installed with
// its sign-in at the (fake) authorization server; a request raised from
// Telegram is approved in the browser and its call shows on the activity
// board, and a call approved in the chat appears there live. A page
// opened without the session, and a change posted without the CSRF token,
// are refused. A screenshot of every page is kept among the artifacts.
func TestDashboardInABrowserW1(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	withGoogle(t, e)
	e.mustJarvis(t, "", "cli", "add", "echo")
	base, _, stop := startDashboard(t, e)
	defer stop()

	shots := artifactDir(t, "dashboard")
	stranger := openBrowser(t, base, shots)
	stranger.open("/approvals")
	stranger.waitText("main", "jarvisbot web")
	if n := stranger.status(http.MethodGet, "/approvals"); n != http.StatusUnauthorized {
		t.Errorf("without a session the browser got %d", n)
	}

	b := openBrowser(t, base, shots)
	b.signInFromChat(tg, 42)
	if n := b.status(http.MethodPost, "/logout"); n != http.StatusForbidden {
		t.Errorf("a post without the CSRF token answered %d, want 403", n)
	}

	t.Run("plugins", func(t *testing.T) {
		b.t = t
		b.open("/plugins")
		b.shot("02-plugins")
		b.do("installing Google Calendar",
			chromedp.Click(chromedp.CSS(`#install-google-calendar button[name=install]`)),
			chromedp.WaitVisible(chromedp.CSS(`#signin-link`)))
		b.shot("03-plugin-install-waiting")
		href, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector("#signin-link").href`))
		if err != nil {
			t.Fatal(err)
		}
		progress, err := chromedp.Run(b.ctx, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		// The owner signs in at Google (here its fake, which approves at
		// once and sends the browser back to jarvisbot).
		b.do("signing in at the authorization server", chromedp.Navigate(href))
		b.open(strings.TrimPrefix(progress, base))
		b.waitText("#install-progress", "Installed")
		b.shot("04-plugin-installed")
		b.open("/plugins")
		b.waitText("#installed-google-calendar", "Google Calendar")
		b.open("/plugins/google-calendar")
		b.waitText("main", "list_events")
		b.shot("05-plugin")
	})

	t.Run("approvals and activity", func(t *testing.T) {
		b.t = t
		f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("cli:echo"), Input: `{"args":["approved","in","the","browser"]}`}}}, fakellm.Step{Text: "The browser's yes ran it."})
		tg.SendText(42, 42, "echo a line for me")
		_, approve := approvalPrompt(t, tg, "the approval prompt", "browser")
		id := requestOf(approve)
		b.open("/approvals")
		b.waitText("#approval-"+id, "cli:echo")
		b.shot("06-approvals")
		b.do("approving in the browser", chromedp.Click(chromedp.CSS(`#approval-`+id+` button[value=approve]`)))
		b.waitText("main .note", "Approved")
		waitSent(t, tg, "the answer after the browser's approval", func(s []faketelegram.Sent) bool { return hasText(s, 42, "The browser's yes ran it.") })

		b.open("/activity")
		b.do("the call on the board", chromedp.WaitVisible(chromedp.CSS(`#activity-rows tr[data-tool="cli:echo"][data-outcome="ok"]`)))
		// The next call, approved in the chat, appears without a reload.
		f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("cli:echo"), Input: `{"args":["approved","in","the","chat"]}`}}}, fakellm.Step{Text: "The chat's yes ran it."})
		tg.SendText(42, 42, "echo another line")
		msg, approve := approvalPrompt(t, tg, "the second approval prompt", "chat")
		tg.Press(42, 42, msg, approve)
		b.do("the chat's call arriving live", chromedp.WaitVisible(chromedp.CSS(`#activity-rows tr[data-tool="cli:echo"][data-outcome="ok"]:nth-child(2)`)))
		b.shot("07-activity")
	})

	t.Run("skills and MCP servers", func(t *testing.T) {
		b.t = t
		b.open("/skills")
		b.shot("08-skills")
		b.do("switching the humanizer off", chromedp.Click(chromedp.CSS(`#switch-humanizer button[name=on]`)))
		b.waitText("#skill-humanizer .skill-state", "off") // the button said "Switch off" before
		if _, list, _ := e.jarvis(t, "", "skills", "list"); !regexp.MustCompile(`skill:humanizer +off`).MatchString(list) {
			t.Errorf("the browser's switch did not reach skills list:\n%s", list)
		}
		b.open("/skills/humanizer")
		b.shot("09-skill")
		b.open("/mcps")
		b.do("adding an MCP server", chromedp.SendKeys(chromedp.CSS(`#mcp-add [name=name]`), "calc"),
			chromedp.SendKeys(chromedp.CSS(`#mcp-add [name=command]`), mcpTestServer(t)),
			chromedp.Click(chromedp.CSS(`#mcp-add button[name=add]`)))
		b.waitText("#mcp-tools", "add")
		b.shot("10-mcp")
		b.open("/mcps")
		b.shot("11-mcps")
	})

	t.Run("other tabs", func(t *testing.T) {
		b.t = t
		b.open("/agents")
		b.do("adding an agent", chromedp.SendKeys(chromedp.CSS(`#agent-add [name=name]`), "notes"),
			chromedp.SendKeys(chromedp.CSS(`#agent-add [name=description]`), "keeps my wiki pages in order"),
			chromedp.Click(chromedp.CSS(`#agent-add button`)))
		b.waitText("#agent-focus", "builtin:wiki")
		b.shot("12-agent")
		b.open("/agents")
		b.shot("13-agents")
		b.open("/schedule")
		b.waitText("main", "morning")
		b.shot("14-schedule")
		b.open("/route")
		b.do("routing a message", chromedp.SendKeys(chromedp.CSS(`#route-message`), "what is on my calendar tomorrow afternoon?"),
			chromedp.Click(chromedp.CSS(`#route-submit`)))
		b.waitText("#route-result", "google-calendar")
		b.shot("15-route")
		b.do("a phone's screen", chromedp.EmulateViewport(390, 844))
		b.open("/approvals")
		b.shot("16-approvals-phone")
	})
}
