package main

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
)

// TestGateLearnsFromARecoveredMissC9: end to end with a real MCP server
// (the test server serving the Google Maps tools) and the scripted model:
// the gate misses maps for the owner's words, the model asks for the
// service and uses it; from then on, in a new process (a restart), the
// gate offers maps for a request in the same words, explained as learned;
// `mcp show` lists the word and `mcp forget` takes it back, after which the
// miss is back.
func TestGateLearnsFromARecoveredMissC9(t *testing.T) {
	e, f, _ := ownerOnTelegram(t) // a channel that keeps serve running for the dashboard
	e.mustJarvis(t, "", "mcp", "add", "maps", "--", mcpTestServer(t), "-name", "maps", "-tools-file", mapsToolsFile(t))
	first := "Wo kriege ich sonntags Hustensaft für die Kleine?"
	later := "Gibt es heute Abend noch irgendwo Hustensaft?"
	for _, msg := range []string{first, later} {
		if offered(t, e, msg)["maps"] {
			t.Fatalf("precondition: the gate offers maps for %q already; the test needs a miss", msg)
		}
	}
	f.Push(
		fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("builtin:skills"), Input: `{"action":"tools","service":"maps"}`}}},
		fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("mcp:maps/maps_search_places"), Input: `{"query":"Apotheke Notdienst"}`}}},
		fakellm.Step{Text: "The pharmacy at the market is on duty."},
	)
	if code, out, errOut := e.jarvis(t, "", "chat", "-m", first); code != 0 || !strings.Contains(out, "on duty") {
		t.Fatalf("chat -m: exit %d\n%s\n%s", code, out, errOut)
	}
	if !offered(t, e, later)["maps"] {
		t.Fatalf("after the recovered miss, maps is not offered for %q", later)
	}
	if out := e.mustJarvis(t, "", "route", later); !strings.Contains(out, "learned word") {
		t.Errorf("route does not say the word was learned:\n%s", out)
	}
	show := e.mustJarvis(t, "", "mcp", "show", "maps")
	if !strings.Contains(show, "learned from your turns: ") || !strings.Contains(show, "hustensaft (1 turn)") {
		t.Fatalf("mcp show does not list the learned word:\n%s", show)
	}
	// The MCPs tab shows the word and removes it, as mcp forget does.
	b, _, stop := serveWithDashboard(t, e)
	if _, page := b.get("/mcps/maps"); !strings.Contains(page, `id="mcp-learned"`) || !strings.Contains(page, `data-word="hustensaft"`) {
		t.Fatalf("the server's page does not list the learned word:\n%s", page)
	}
	if res := b.post("/mcps/maps/forget", url.Values{"word": {"hustensaft"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("removing the learned word: %s", res.Status)
	}
	if note := b.note("/mcps/maps"); note != `maps no longer offers itself on "hustensaft".` {
		t.Errorf("removing the learned word: note %q", note)
	}
	stop()
	if offered(t, e, later)["maps"] {
		t.Errorf("a forgotten word still offers maps for %q", later)
	}
	// A turn that ends without using the recovered service teaches nothing.
	f.Push(
		fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("builtin:skills"), Input: `{"action":"tools","service":"maps"}`}}},
		fakellm.Step{Text: "I cannot tell from here."},
	)
	e.mustJarvis(t, "", "chat", "-m", "Wo gibt es Lakritzschnecken?")
	if out := e.mustJarvis(t, "", "mcp", "show", "maps"); strings.Contains(out, "lakritzschneck") {
		t.Errorf("an unused recovery taught the gate:\n%s", out)
	}
}
