package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fixtures"
)

// mapsToolsFile writes the tool list of the Google Maps server of the
// extended snapshot, for the MCP test server to stand in for it.
func mapsToolsFile(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(fixtures.Path(t, "catalog-extended.json"))
	if err != nil {
		t.Fatal(err)
	}
	var snap struct {
		Servers []struct {
			Name  string            `json:"name"`
			Tools []json.RawMessage `json:"tools"`
		} `json:"mcp_servers"`
	}
	if err := json.Unmarshal(data, &snap); err != nil {
		t.Fatal(err)
	}
	for _, s := range snap.Servers {
		if s.Name == "google-maps" {
			b, _ := json.Marshal(s.Tools)
			path := filepath.Join(t.TempDir(), "maps-tools.json")
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			return path
		}
	}
	t.Fatal("the extended snapshot has no google-maps server")
	return ""
}

// vagueRequest is a message whose words point at no server: the gate
// offers none for it.
const vagueRequest = "Could you help me with that, please?"

// TestChatRecoversAGateMissC8: end to end through `chat -m`, with a real MCP
// server (the test server serving the Google Maps tools) and the scripted
// model: the gate offers no server for the message, so the model asks for
// the maps service through the skills tool; the next request offers its
// tools after the ones sent before (which stay the same bytes), the model
// calls one, the server answers, and the model answers the owner.
func TestChatRecoversAGateMissC8(t *testing.T) {
	e := newTestEnv(t)
	f := withModel(t, e)
	srv := mcpTestServer(t)
	e.mustJarvis(t, "", "mcp", "add", "maps", "--", srv, "-name", "maps", "-tools-file", mapsToolsFile(t))
	if got := offered(t, e, vagueRequest); len(got) != 0 {
		t.Fatalf("precondition: the gate offered %v for %q; the test needs a miss", got, vagueRequest)
	}
	tool := llm.WireName("mcp:maps/maps_directions")
	f.Push(
		fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("builtin:skills"), Input: `{"action":"tools","service":"maps"}`}}},
		fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: tool, Input: `{"origin":"home","destination":"the station"}`}}},
		fakellm.Step{Text: "Take the tram: 20 minutes."},
	)
	code, out, errOut := e.jarvis(t, "", "chat", "-m", vagueRequest)
	if code != 0 || !strings.Contains(out, "Take the tram") {
		t.Fatalf("chat -m: exit %d\n%s\n%s", code, out, errOut)
	}
	reqs := f.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want 3", len(reqs))
	}
	if slices.Contains(reqs[0].Tools, tool) || !slices.Contains(reqs[1].Tools, tool) {
		t.Errorf("%s in the first request: %v; in the second: %v", tool, slices.Contains(reqs[0].Tools, tool), slices.Contains(reqs[1].Tools, tool))
	}
	if !strings.Contains(reqs[0].System, "\n- maps: ") {
		t.Errorf("the stable prompt does not list the maps service:\n%s", reqs[0].System)
	}
	var first, second struct {
		Tools []json.RawMessage `json:"tools"`
	}
	json.Unmarshal(reqs[0].Body, &first)
	json.Unmarshal(reqs[1].Body, &second)
	if len(second.Tools) != len(first.Tools)+7 {
		t.Errorf("%d tools, then %d: want the 7 maps tools added", len(first.Tools), len(second.Tools))
	}
	for i := range first.Tools {
		if i >= len(second.Tools) || string(first.Tools[i]) != string(second.Tools[i]) {
			t.Fatalf("tool %d of the first request is not the same bytes in the second", i)
		}
	}
	answered := false
	for _, m := range reqs[2].Messages {
		for _, r := range m.ToolResults {
			answered = answered || strings.Contains(r, "maps_directions called")
		}
	}
	if !answered {
		t.Errorf("the maps server's answer did not reach the model: %+v", reqs[2].Messages)
	}
}

// TestRouteSaysWhatIsOnRequestC8: route names the servers left available
// on request, in its text and in --json's on_request, after every field it
// had before; the memory (recall) is one of them when the message does not
// refer to the past.
func TestRouteSaysWhatIsOnRequestC8(t *testing.T) {
	e := newTestEnv(t)
	seed := fixtures.Path(t, "catalog-seed.json")
	code, out, _ := e.jarvis(t, "", "route", "--catalog", seed, "Which issues are still open in the website repo?")
	if code != 0 || !strings.Contains(out, "On request (the model can ask for their tools): notebooklm-mcp, recall\n") {
		t.Errorf("route: exit %d\n%s", code, out)
	}
	code, out, _ = e.jarvis(t, "", "route", "--json", "--catalog", seed, "Good morning!")
	if code != 0 || !strings.HasSuffix(strings.TrimSpace(out), `,"on_request":["github","notebooklm-mcp","recall"]}`) {
		t.Errorf("route --json: exit %d\n%s", code, out)
	}
}
