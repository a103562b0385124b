package agents

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestGenericFormCH2: a tool that does not describe its calls (an MCP
// tool, a CLI program) gets each argument on its own labelled line, in the
// model's order, long values cut with their length said, nested values
// compact, control characters shown.
func TestGenericFormCH2(t *testing.T) {
	long := strings.Repeat("x", 2431)
	cases := []struct {
		name, args string
		want       string
	}{
		{"none", `{}`, "Use the tool create_issue of the MCP server github"},
		{"in order", `{"repo":"jarvisbot/jarvisbot","title":"Crash on start","labels":["bug","p1"],"draft":false,"count":3}`,
			"Use the tool create_issue of the MCP server github\nrepo: jarvisbot/jarvisbot\ntitle: Crash on start\nlabels: [\"bug\",\"p1\"]\ndraft: false\ncount: 3"},
		{"nested compact", `{"body": { "a" : [1, 2], "b": {"c": null} }}`,
			"Use the tool create_issue of the MCP server github\nbody: {\"a\":[1,2],\"b\":{\"c\":null}}"},
		{"long value cut", `{"body":"` + long + `"}`,
			"Use the tool create_issue of the MCP server github\nbody: " + strings.Repeat("x", 200) + "… (2,431 chars)"},
		{"several lines", `{"body":"one\ntwo\nthree\nfour\nfive\nsix"}`,
			"Use the tool create_issue of the MCP server github\nbody:\n  one\n  two\n  three\n  four\n  … (2 more lines, 27 chars in all)"},
		{"control characters", `{"title":"ok\u001b[2Jhidden\u202egnp.exe","empty":""}`,
			"Use the tool create_issue of the MCP server github\ntitle: ok\\x1b[2Jhidden\\u202egnp.exe\nempty: (empty)"},
		{"not an object", `["a","b"]`, "Use the tool create_issue of the MCP server github\nArguments: [\"a\",\"b\"]"},
	}
	cp := &catalog.Capability{ID: "mcp:github/create_issue", Kind: catalog.KindMCP, Server: "github", Tool: "create_issue"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := RenderSummary(Generic(genericWhat(cp), json.RawMessage(c.args)), "")
			if got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// TestSummaryBoundsCH2: however many and however long the arguments, a
// request's text stays within MaxSummary, says what it left out, and the
// agent's reason is one bounded line.
func TestSummaryBoundsCH2(t *testing.T) {
	var args strings.Builder
	args.WriteString("{")
	for i := range 30 {
		if i > 0 {
			args.WriteString(",")
		}
		args.WriteString(`"arg` + strings.Repeat("n", i) + `":"` + strings.Repeat("é", 500) + `"`)
	}
	args.WriteString("}")
	got := RenderSummary(Generic("Run the program big", json.RawMessage(args.String())), "I will do it.\nSecond line never shown.")
	if n := utf8.RuneCountInString(got); n > MaxSummary {
		t.Errorf("summary is %d characters, more than %d", n, MaxSummary)
	}
	if !strings.Contains(got, " more (the dashboard shows them all)\nThe agent says: \"I will do it.\"") || strings.Contains(got, "Second line") {
		t.Errorf("summary does not say what it left out, or shows the reason's second line:\n%s", got)
	}
	if r := Reason("\n  " + strings.Repeat("why ", 100) + "\nmore"); utf8.RuneCountInString(r) > maxReason+20 || !strings.HasSuffix(r, "… (399 chars)") {
		t.Errorf("reason %q", r)
	}
	if r := Reason("Saving your list.\u001b[31m"); r != `Saving your list.\x1b[31m` {
		t.Errorf("reason %q", r)
	}
}

// TestApprovalSaysWhatCH2: a wiki write the owner raised to ask is asked
// in words: the page, its text, and the agent's reason from what the model
// wrote beside the call; an MCP-like CLI call gets the generic form.
func TestApprovalSaysWhatCH2(t *testing.T) {
	e := newEnv(t, "anthropic")
	if err := e.catalog.SetTier("builtin:wiki", catalog.TierAsk); err != nil {
		t.Fatal(err)
	}
	e.llm.Push(fakellm.Step{Text: "I'll save your shopping list to the wiki.\nThen I'll confirm.", ToolCalls: []fakellm.ToolCall{call("builtin:wiki", `{"action":"write","name":"groceries","body":"# Groceries\n- milk\n- eggs"}`)}},
		fakellm.Step{Text: "done"})
	got := make(chan store.Approval, 1)
	go func() {
		a := <-e.asked
		got <- a
		e.engine.Decide(t.Context(), a.ID, "console", false, false)
	}()
	e.turn(t, "note milk and eggs")
	a := <-got
	want := "Create the wiki page groceries\nPage: groceries\nText:\n  # Groceries\n  - milk\n  - eggs\nThe agent says: \"I'll save your shopping list to the wiki.\""
	if a.Summary != want {
		t.Errorf("approval summary\n%s\nwant\n%s", a.Summary, want)
	}
}
