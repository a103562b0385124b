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
	if out := e.mustJarvis(t, "", "route", later); !strings.Contains(out, `learned word "hustensaft" from 1 turn`) {
		t.Errorf("route does not say the word was learned, nor from how many turns:\n%s", out)
	}
	show := e.mustJarvis(t, "", "mcp", "show", "maps")
	if !strings.Contains(show, "learned from your turns: ") || !strings.Contains(show, "hustensaft, sonntags (1 turn, Wed 2 Dec 12:00 in console)") {
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

// skillEntry is how route says a skill enters the turn for msg ("" when
// it did not match), with the learned words it matched.
func skillEntry(t *testing.T, e *testEnv, msg, skill string) (string, []string) {
	t.Helper()
	code, out, errOut := e.jarvis(t, "", "route", "--json", msg)
	if code != 0 {
		t.Fatalf("route: %s", errOut)
	}
	for _, s := range decodeRoutes(t, out)[0].Skills {
		if s.ID == "skill:"+skill {
			return s.Entry, s.Learned
		}
	}
	return "", nil
}

// TestSkillsLearnFromARecoveredTurnC9: end to end with the scripted model
// and the shipped humanizer: the scorer misses it for the owner's words,
// the model asks for it by name and follows it; from then on, in new
// processes, a request in the same words brings it, explained by route as
// learned; `skills show` lists the words, the skill's dashboard page
// removes one, `skills forget` the rest, after which the miss is back.
func TestSkillsLearnFromARecoveredTurnC9(t *testing.T) {
	e, f, _ := ownerOnTelegram(t)
	first := "Mach mein Bewerbungsschreiben für die Kanzlei weniger hölzern"
	later := "Das Bewerbungsschreiben an die Kanzlei ist immer noch hölzern"
	for _, msg := range []string{first, later} {
		if entry, _ := skillEntry(t, e, msg, "humanizer"); entry != "" && entry != "none" {
			t.Fatalf("precondition: %q brings the humanizer already (%s); the test needs a miss", msg, entry)
		}
	}
	f.Push(
		fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("builtin:skills"), Input: `{"action":"use","name":"humanizer"}`}}},
		fakellm.Step{Text: "Sehr geehrte Frau Berg, anbei meine Unterlagen."},
	)
	if code, out, errOut := e.jarvis(t, "", "chat", "-m", first); code != 0 || !strings.Contains(out, "Unterlagen") {
		t.Fatalf("chat -m: exit %d\n%s\n%s", code, out, errOut)
	}
	entry, learned := skillEntry(t, e, later, "humanizer")
	if entry != "join" || len(learned) == 0 {
		t.Fatalf("after the recovered turn, %q: humanizer enters as %q with learned words %v; want join, explained", later, entry, learned)
	}
	if out := e.mustJarvis(t, "", "route", later); !strings.Contains(out, "learned word") {
		t.Errorf("route does not say the skill's words were learned:\n%s", out)
	}
	show := e.mustJarvis(t, "", "skills", "show", "humanizer")
	if !strings.Contains(show, "learned from your turns: ") || !strings.Contains(show, "bewerbungsschreiben, holzern, kanzlei (1 turn, Wed 2 Dec 12:00 in console)") || !strings.Contains(show, "skills forget humanizer") {
		t.Fatalf("skills show does not list the learned words:\n%s", show)
	}
	b, _, stop := serveWithDashboard(t, e)
	if _, page := b.get("/skills/humanizer"); !strings.Contains(page, `id="skill-learned"`) || !strings.Contains(page, `data-word="kanzlei"`) {
		t.Fatalf("the skill's page does not list the learned word:\n%s", page)
	}
	if res := b.post("/skills/humanizer/forget", url.Values{"word": {"kanzlei"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("removing the learned word: %s", res.Status)
	}
	if note := b.note("/skills/humanizer"); note != `The skill humanizer no longer enters a turn on "kanzlei".` {
		t.Errorf("removing the learned word: note %q", note)
	}
	stop()
	if show := e.mustJarvis(t, "", "skills", "show", "humanizer"); strings.Contains(show, "kanzlei (") {
		t.Errorf("a removed word is still listed:\n%s", show)
	}
	if out := e.mustJarvis(t, "", "skills", "forget", "humanizer"); !strings.Contains(out, "Forgot the") {
		t.Errorf("skills forget: %s", out)
	}
	if entry, _ := skillEntry(t, e, later, "humanizer"); entry != "" && entry != "none" {
		t.Errorf("forgotten words still bring the humanizer (%s)", entry)
	}
}
