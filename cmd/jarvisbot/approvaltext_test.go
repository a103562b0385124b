package main

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
)

// TestApprovalSaysWhatTelegramCH2: the owner decides on a phone from the
// message alone: a wiki write the owner raised to ask names the page and
// its first lines and gives the agent's reason; an MCP tool's call lists
// its arguments by name, a long one cut with its length said; both say
// who asked, when the request expires in the owner's zone, and link to the
// dashboard's page of the request.
func TestApprovalSaysWhatTelegramCH2(t *testing.T) {
	if _, err := time.LoadLocation("Asia/Tokyo"); err != nil {
		t.Skip("no time zone database:", err)
	}
	e, f, tg := ownerOnTelegram(t)
	e.vars["JARVIS_WEB_LISTEN"], e.vars["JARVIS_WEB_URL"] = "127.0.0.1:0", "https://jarvis.example.com"
	e.writeConfig(t, "timezone: Asia/Tokyo\ntiers:\n  builtin:wiki: ask\n  mcp:testbox/echo: ask\n")
	e.mustJarvis(t, "", "mcp", "add", "testbox", "--", mcpTestServer(t), "-name", "testbox")
	out, stopServe := startServe(t, e)
	defer stopServe()
	waitOutput(t, out, "jarvisbot is ready")
	// The engine's clock is the wall clock: the expiry's minute is not
	// pinned, its zone is. A request raised late in Tokyo's evening
	// expires the next day, which the request then names.
	expires := regexp.MustCompile(`/approvals/[a-z0-9]+\nApprove\? It expires at \d\d:\d\d JST( \((Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} [A-Z][a-z]{2}\))?\.$`)

	request := func(about string) faketelegram.Sent {
		t.Helper()
		var got faketelegram.Sent
		waitSent(t, tg, "the approval request for "+about, func(s []faketelegram.Sent) bool {
			for _, m := range s {
				if m.ChatID == 42 && m.Method == "sendMessage" && strings.Contains(m.Text, about) && len(m.Buttons) > 0 {
					got = m
					return true
				}
			}
			return false
		})
		return got
	}
	deny := func(m faketelegram.Sent) {
		t.Helper()
		tg.Press(42, 42, m.MessageID, m.Buttons[0][1].Data)
	}

	f.Push(fakellm.Step{Text: "I'll save your shopping list in the wiki.\nThen I'll tell you.",
		ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("builtin:wiki"), Input: `{"action":"write","name":"groceries","body":"# Groceries\n- milk\n- eggs\n- bread\n- tea\n- rice"}`}}},
		fakellm.Step{Text: "Not saved."})
	tg.SendText(42, 42, "write my groceries list to the wiki: milk, eggs, bread, tea, rice")
	m := request("groceries")
	for _, want := range []string{
		"Approval needed: Create the wiki page groceries", "Page: groceries", "Text:", "# Groceries", "- milk", "- bread",
		"… (2 more lines, 46 chars in all)", "The agent says:", "save your shopping list in the wiki.",
		"Asked by agent default · builtin:wiki", "All arguments: https://jarvis.example.com/approvals/",
	} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("the wiki request does not say %q:\n%s", want, m.Text)
		}
	}
	if !expires.MatchString(m.Text) {
		t.Errorf("the wiki request does not say when it expires in the owner's zone:\n%s", m.Text)
	}
	if strings.Contains(m.Text, "tea") || strings.Contains(m.Text, "Then I'll tell you") || strings.Contains(m.Text, `{"action"`) {
		t.Errorf("the wiki request shows more than the first lines and the reason's first line, or raw JSON:\n%s", m.Text)
	}
	deny(m)
	waitSent(t, tg, "the answer after the denial", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Not saved.") })

	long := strings.Repeat("a", 2431)
	f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("mcp:testbox/echo"), Input: `{"text":"` + long + `"}`}}},
		fakellm.Step{Text: "Not echoed."})
	tg.SendText(42, 42, "ask testbox to echo a long line")
	m = request("testbox")
	for _, want := range []string{
		"Approval needed: Use the tool echo of the MCP server testbox", "text: " + strings.Repeat("a", 200) + "… (2,431 chars)",
		"Asked by agent default · mcp:testbox/echo", "All arguments: https://jarvis.example.com/approvals/",
	} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("the MCP request does not say %q:\n%s", want, m.Text)
		}
	}
	if !expires.MatchString(m.Text) {
		t.Errorf("the MCP request does not say when it expires in the owner's zone:\n%s", m.Text)
	}
	if len([]rune(m.Text)) > 2000 {
		t.Errorf("the MCP request is %d characters", len([]rune(m.Text)))
	}
	deny(m)
	waitSent(t, tg, "the answer after the denial", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Not echoed.") })
}

// TestApprovalPageShowsArgumentsWholeCH2: what the chat's message cuts
// short is one tap away: the request's page on the dashboard shows the
// call's arguments whole, their control characters visible, with the
// buttons while it waits; the Approvals list links to it.
func TestApprovalPageShowsArgumentsWholeCH2(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	e.mustJarvis(t, "", "cli", "add", "echo")
	b, _, stop := serveWithDashboard(t, e)
	defer stop()
	long := strings.Repeat("word ", 100) + "end\u001b[2J\u202e"
	input, err := json.Marshal(map[string][]string{"args": {long}})
	if err != nil {
		t.Fatal(err)
	}
	f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("cli:echo"), Input: string(input)}}}, fakellm.Step{Text: "Not echoed."})
	tg.SendText(42, 42, "echo a long line")
	msg, approve := approvalPrompt(t, tg, "the approval prompt", "word")
	id := requestOf(approve)
	if m, _ := tg.Message(42, msg); strings.Contains(m.Text, "end") {
		t.Errorf("the chat's message shows the whole long argument:\n%s", m.Text)
	}

	code, page := b.get("/approvals/" + id)
	for _, want := range []string{`id="request-` + id + `"`, strings.Repeat("word ", 100) + `end\u001b[2J\u202e`, `value="approve"`, "Run the program echo"} {
		if code != http.StatusOK || !strings.Contains(page, want) {
			t.Errorf("the request's page lacks %q: %d\n%s", want, code, page)
		}
	}
	if _, list := b.get("/approvals"); !strings.Contains(list, `href="/approvals/`+id+`"`) {
		t.Errorf("the Approvals list does not link to the request's page:\n%s", list)
	}
	tg.Press(42, 42, msg, "ap:"+id+":n")
	waitSent(t, tg, "the answer after the denial", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Not echoed.") })
	if _, page := b.get("/approvals/" + id); strings.Contains(page, `value="approve"`) || !strings.Contains(page, "Denied by telegram:42") {
		t.Errorf("a decided request's page:\n%s", page)
	}
	if code, _ := b.get("/approvals/nosuchrequest"); code != http.StatusNotFound {
		t.Errorf("an unknown request's page answered %d", code)
	}
}
