package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/app"
)

// TestDashboardMCPsAddShowCardM1C5: over HTTP against serve, the MCPs tab
// adds our test server with mcp add's checks and words, the running host
// brings it up, its page lists its tools with their tiers, a card saved
// there is what route matches, a bad add is refused in the CLI's words
// with nothing stored, and switching off and removing are the CLI's.
func TestDashboardMCPsAddShowCardM1C5(t *testing.T) {
	e := newTestEnv(t)
	srv := mcpTestServer(t)
	b, _ := serveTabs(t, e)

	res, _ := b.post(t, "/mcps", url.Values{"name": {"testbox"}, "command": {srv + " -name testbox"}, "timeout": {"5s"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/mcps/testbox" {
		t.Fatalf("add: %s to %q", res.Status, res.Header.Get("Location"))
	}
	if note := b.note(t, res); !strings.Contains(note, "Added testbox") || !strings.Contains(note, "switched on") {
		t.Errorf("the add's note: %q", note)
	}
	waitFor(t, "the host to have testbox up", func() (bool, any) {
		_, page := b.get(t, "/mcps")
		return strings.Contains(page, `<td class="tier-safe">up</td>`), page
	})
	_, page := b.get(t, "/mcps/testbox")
	for _, want := range []string{"mcp:testbox/delete_everything", `<td class="tier-ask">ask</td>`, `id="mcp-card"`, "timeout: 5s", `id="mcp-switch-testbox"`, `id="mcp-remove-testbox"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the server's page lacks %q", want)
		}
	}

	const ask = "where is my parcel right now"
	if offered(t, e, ask)["testbox"] {
		t.Fatal("testbox is offered for a parcel before its card says so")
	}
	res, _ = b.post(t, "/mcps/testbox/card", url.Values{"card": {"parcel\nPaket"}})
	if note := b.note(t, res); !strings.Contains(note, "Saved your usage card of testbox: parcel, Paket") {
		t.Errorf("saving the card: %s, note %q", res.Status, note)
	}
	if !offered(t, e, ask)["testbox"] {
		t.Error("route does not offer testbox for a parcel after its card was saved on the dashboard")
	}
	if _, page := b.get(t, "/mcps/testbox"); !strings.Contains(page, "Its card is yours") || !strings.Contains(page, ">parcel\nPaket</textarea>") {
		t.Errorf("the page does not show the saved card:\n%s", page)
	}

	res, page = b.post(t, "/mcps", url.Values{"name": {"glued"}, "command": {"true"}, "env": {"API_KEY=pre${OTHER}"}})
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(page, "API_KEY") || !strings.Contains(page, "jarvisbot secrets set") {
		t.Errorf("a bad add: %s\n%s", res.Status, page)
	}
	res, page = b.post(t, "/mcps", url.Values{"name": {"both"}, "command": {"true"}, "url": {"https://example.test/mcp"}})
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(page, "not both") {
		t.Errorf("a command and a URL: %s\n%s", res.Status, page)
	}

	res, _ = b.post(t, "/mcps/testbox/switch", url.Values{"on": {"false"}})
	if note := b.note(t, res); !strings.Contains(note, "testbox is off") {
		t.Errorf("switching off: note %q", note)
	}
	_, out, _ := e.jarvis(t, "", "mcp", "list", "--json")
	var rows []app.ServerRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 || rows[0].Name != "testbox" || rows[0].Enabled {
		t.Errorf("after switching off on the dashboard, mcp list says %s (%v): only testbox, off", out, err)
	}
	if _, page := b.get(t, "/mcps"); strings.Contains(page, ">up<") {
		t.Error("the host still has testbox up after it was switched off")
	}
	res, _ = b.post(t, "/mcps/testbox/remove", url.Values{})
	if note := b.note(t, res); !strings.Contains(note, "Removed MCP server testbox") {
		t.Errorf("removing: note %q", note)
	}
	_, out, _ = e.jarvis(t, "", "mcp", "list", "--json")
	if err := json.Unmarshal([]byte(out), &rows); err != nil || !reflect.DeepEqual(rows, []app.ServerRow{}) {
		t.Errorf("after removing, mcp list says %s", out)
	}
}
