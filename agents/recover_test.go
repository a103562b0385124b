package agents

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/agents/approvals"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fixtures"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/skillbook"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// vague is a message whose words point at no server and no skill: the
// gate offers nothing for it, so whatever the turn needs it must ask for.
const vague = "Could you help me with that, please?"

// calendarManual is a store plugin's manual, as the store ships them.
var calendarManual = &skills.Skill{Name: "google-calendar", Plugin: "google-calendar", Does: skills.KindTools,
	Description: "Use when the owner asks about their schedule, free time or events.",
	Words:       []string{"calendar", "appointment"}, Body: "Use the calendar tools; read before you change."}

var humanizer = &skills.Skill{Name: "humanizer", Does: skills.KindInstructions,
	Description: "Rewrite text so it sounds like a person wrote it.", Words: []string{"humanize"}, Body: "Prefer short sentences."}

// recoverEnv is the runtime over the 17 servers of the extended snapshot,
// with builtin:skills over a plugin's manual and a general skill, and the
// MCP tools answered as the MCP test server answers them ("TOOL called").
// agent is created with its allow- and block-lists.
func recoverEnv(t *testing.T, ag store.Agent) (*env, *[]string) {
	t.Helper()
	e := newEnv(t, "anthropic")
	f, err := os.Open(fixtures.Path(t, "catalog-extended.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	snap, err := catalog.ReadSnapshot(f, "catalog-extended.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.catalog.LoadSnapshot(snap); err != nil {
		t.Fatal(err)
	}
	// A server with a tool of the never-list among ordinary ones.
	if err := e.catalog.SetServer(catalog.Server{ID: "ops", Title: "Ops", Connected: true}, []catalog.SnapshotTool{
		{Name: "spawn_worker", Description: "Start a background worker."},
		{Name: "status_page", Description: "Read the status page."},
	}); err != nil {
		t.Fatal(err)
	}
	if err := e.catalog.Add(skillbook.Capability()); err != nil {
		t.Fatal(err)
	}
	enabled := []*skills.Skill{humanizer, calendarManual}
	e.rt.Skills = func(context.Context, string) (*skills.Ranker, error) { return skills.NewRanker(enabled), nil }
	e.rt.Runners[skillbook.ID] = skillbook.Books(func(string) *skillbook.Book {
		return skillbook.New(skills.Folder(t.TempDir()), func(context.Context) ([]*skills.Skill, error) { return enabled, nil })
	})
	var ran []string
	e.rt.Runners[string(catalog.KindMCP)] = RunnerFunc(func(_ context.Context, c catalog.Call) (catalog.Output, error) {
		ran = append(ran, c.Cap.ID)
		return catalog.Output{Text: c.Cap.Tool + " called"}, nil
	})
	if ag.Name != "default" {
		if err := e.db.CreateAgent(context.Background(), ag); err != nil {
			t.Fatal(err)
		}
	}
	return e, &ran
}

func (e *env) turnAs(t *testing.T, agent, text string) Result {
	t.Helper()
	r, err := e.rt.Turn(context.Background(), Input{Agent: agent, Chat: "console", Text: text})
	if err != nil {
		t.Fatalf("turn %q: %v", text, err)
	}
	return r
}

// anthropicTools returns the tools of a recorded Anthropic request as the
// bytes the provider got.
func anthropicTools(t *testing.T, r fakellm.Request) []string {
	t.Helper()
	var body struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(body.Tools))
	for i, b := range body.Tools {
		out[i] = string(b)
	}
	return out
}

// TestMissRecoveredOneStepLaterC8: a request the gate offers no server for
// is still answered with the right tool one model step later. The model
// asks for the service through the skills tool (by name, or by reading its
// plugin's manual); from the next call on the service's tools are in the
// request, appended after the tools sent before, which stay byte for byte
// the same (the cached prefix); the tool's call passes the runtime's
// "offered this turn" check and runs; the model answers.
func TestMissRecoveredOneStepLaterC8(t *testing.T) {
	for _, tt := range []struct {
		name string
		ask  string
		tool string
		args string
	}{
		{"by service name", `{"action":"tools","service":"google-maps"}`, "mcp:google-maps/maps_directions", `{"origin":"home","destination":"station"}`},
		{"by title", `{"action":"tools","service":"Google Maps"}`, "mcp:google-maps/maps_distance_matrix", `{"origins":["home"],"destinations":["station"]}`},
		{"through the plugin's manual", `{"action":"use","name":"google-calendar"}`, "mcp:google-calendar/list-events", `{"calendarId":"primary"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, ran := recoverEnv(t, store.Agent{Name: "default"})
			e.llm.Push(
				fakellm.Step{ToolCalls: []fakellm.ToolCall{call(skillbook.ID, tt.ask)}},
				fakellm.Step{ToolCalls: []fakellm.ToolCall{call(tt.tool, tt.args)}},
				fakellm.Step{Text: "Done."},
			)
			r := e.turnAs(t, "default", vague)
			if r.Text != "Done." || r.Steps != 3 {
				t.Fatalf("result %+v", r)
			}
			reqs := e.llm.Requests()
			wire := call(tt.tool, "").Name
			server := strings.SplitN(strings.TrimPrefix(tt.tool, "mcp:"), "/", 2)[0]
			for _, name := range reqs[0].Tools {
				if strings.HasPrefix(name, "mcp__") {
					t.Fatalf("precondition: the gate offered %s for %q; the test needs a miss", name, vague)
				}
			}
			if !slices.Contains(reqs[1].Tools, wire) {
				t.Fatalf("the second request does not offer %s: %v", wire, reqs[1].Tools)
			}
			first, second := anthropicTools(t, reqs[0]), anthropicTools(t, reqs[1])
			if len(second) <= len(first) || !slices.Equal(first, second[:len(first)]) {
				t.Errorf("the first call's tools are not a byte-identical prefix of the second's (%d, %d tools)", len(first), len(second))
			}
			for _, name := range reqs[1].Tools[len(first):] {
				if !strings.HasPrefix(name, "mcp__"+server+"__") {
					t.Errorf("%s joined, which is not a tool of %s", name, server)
				}
			}
			if reqs[0].System != reqs[1].System {
				t.Error("the system prompt changed within the turn")
			}
			if !slices.Equal(*ran, []string{tt.tool}) {
				t.Errorf("MCP calls that ran: %v", *ran)
			}
			res := e.lastResults(t)
			if len(res) != 2 || !strings.Contains(res[0], "yours from your next step on") || !strings.Contains(res[1], "called") {
				t.Errorf("results the model read: %q", res)
			}
			if !slices.Contains(r.Tools, tt.tool) {
				t.Errorf("the turn's tools do not name %s", tt.tool)
			}
		})
	}
}

// TestRequestKeepsGrantAndDenyC8: what the agent may not have never joins
// on request: a tool on its block-list, a whole blocked server, a server
// outside its allow-list, a tool on the never-list. A call of such a tool
// is refused as not offered; the model is told why nothing came.
func TestRequestKeepsGrantAndDenyC8(t *testing.T) {
	for _, tt := range []struct {
		name    string
		agent   store.Agent
		service string
		call    string
		joined  int    // tools that join
		says    string // in the request's result
		refusal string
	}{
		{"blocked tool", store.Agent{Name: "scoped", Block: []string{"mcp:google-maps/maps_directions"}},
			"google-maps", "mcp:google-maps/maps_directions", 6, "yours from your next step on", "was not offered"},
		{"blocked server", store.Agent{Name: "scoped", Block: []string{"mcp:memory"}},
			"memory", "mcp:memory/read_graph", 0, "none of the tools of memory is available to you", "was not offered"},
		{"outside the allow-list", store.Agent{Name: "scoped", Allow: []string{"builtin:*", "mcp:github"}},
			"google-maps", "mcp:google-maps/maps_geocode", 0, "none of the tools of google-maps is available to you", "was not offered"},
		{"never-list", store.Agent{Name: "default"},
			"ops", "mcp:ops/spawn_worker", 1, "mcp__ops__status_page", "never available"},
		{"unknown service", store.Agent{Name: "default"},
			"teleporter", "mcp:teleporter/beam", 0, "no connected service is named", "was not offered"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, ran := recoverEnv(t, tt.agent)
			args, _ := json.Marshal(map[string]string{"action": "tools", "service": tt.service})
			e.llm.Push(
				fakellm.Step{ToolCalls: []fakellm.ToolCall{call(skillbook.ID, string(args))}},
				fakellm.Step{ToolCalls: []fakellm.ToolCall{call(tt.call, `{}`)}},
				fakellm.Step{Text: "Could not."},
			)
			e.turnAs(t, tt.agent.Name, vague)
			reqs := e.llm.Requests()
			if got := len(reqs[1].Tools) - len(reqs[0].Tools); got != tt.joined {
				t.Errorf("%d tools joined, want %d: %v", got, tt.joined, reqs[1].Tools[len(reqs[0].Tools):])
			}
			if slices.Contains(reqs[1].Tools, call(tt.call, "").Name) {
				t.Errorf("%s joined", tt.call)
			}
			res := e.lastResults(t)
			if !strings.Contains(res[0], tt.says) {
				t.Errorf("the model read %q, want it to say %q", res[0], tt.says)
			}
			if !strings.Contains(res[1], tt.refusal) {
				t.Errorf("the call of %s: %q, want a refusal saying %q", tt.call, res[1], tt.refusal)
			}
			if len(*ran) != 0 {
				t.Errorf("MCP calls ran: %v", *ran)
			}
		})
	}
}

// TestPromptListsServicesAndSkillsC8: the stable prompt lists every
// connected service the agent may use and every enabled skill, one short
// line each, a plugin's service described by its manual (whose line stands
// for the manual), and says how to ask for a service; it is the same bytes
// for different messages, and a blocked service is not in it.
func TestPromptListsServicesAndSkillsC8(t *testing.T) {
	e, _ := recoverEnv(t, store.Agent{Name: "scoped", Block: []string{"mcp:memory"}})
	e.llm.Push(fakellm.Step{Text: "one"}, fakellm.Step{Text: "two"})
	e.turnAs(t, "scoped", vague)
	e.turnAs(t, "scoped", "Whats planned on Wednesday? Also find the way to the station.")
	reqs := e.llm.Requests()
	sys := reqs[0].System
	if sys != reqs[1].System {
		t.Fatalf("the system prompt differs between turns:\n%s\n---\n%s", sys, reqs[1].System)
	}
	for _, want := range []string{
		`{"action":"tools","service":"NAME"}`,
		"\n- google-maps: ",
		"\n- google-calendar: Use when the owner asks about their schedule",
		"\n- notebooklm-mcp (NotebookLM): ",
		"\n- humanizer: Rewrite text so it sounds like a person wrote it.",
	} {
		if !strings.Contains(sys, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, sys)
		}
	}
	if strings.Contains(sys, "\n- memory") || strings.Contains(sys, "\n- google-calendar: google-calendar") {
		t.Errorf("a blocked service, or the manual a service line stands for, is listed:\n%s", sys)
	}
	lines := 0
	for _, l := range strings.Split(sys, "\n") {
		if strings.HasPrefix(l, "- ") {
			lines++
			if len(l) > 2+maxLineBytes {
				t.Errorf("line of %d bytes: %q", len(l), l)
			}
		}
	}
	if want := 17 - 1 + 1 + 1; lines != want { // the 17 servers but memory, and ops, and humanizer
		t.Errorf("%d listed lines, want %d:\n%s", lines, want, sys)
	}
	t.Logf("stable prompt with %d services and skills: %d bytes", lines, len(sys))
}

// TestRequestedToolSurvivesRestartC8: a tool that joined on the model's
// request and waits for the owner's approval when the service stops still
// runs once the owner approves after the restart: the resumed turn offers
// it again, under the same plan, instead of refusing it as not offered.
func TestRequestedToolSurvivesRestartC8(t *testing.T) {
	e, ran := recoverEnv(t, store.Agent{Name: "default"})
	if err := e.catalog.SetTier("mcp:google-maps/maps_directions", catalog.TierAsk); err != nil {
		t.Fatal(err)
	}
	e.llm.Push(
		fakellm.Step{ToolCalls: []fakellm.ToolCall{call(skillbook.ID, `{"action":"tools","service":"google-maps"}`)}},
		fakellm.Step{ToolCalls: []fakellm.ToolCall{call("mcp:google-maps/maps_directions", `{"origin":"home","destination":"station"}`)}},
	)
	ctx, stop := context.WithCancel(context.Background())
	go func() { <-e.asked; stop() }() // the service goes down while it waits
	if _, err := e.rt.Turn(ctx, Input{Agent: "default", Chat: "console", Text: vague}); err == nil {
		t.Fatal("the interrupted turn reported success")
	}
	orphans := make(chan store.Approval, 1)
	e.engine = approvals.New(approvals.Options{Store: e.db, Clock: e.clk, Orphan: func(a store.Approval) { orphans <- a }})
	e.rt.Approvals = e.engine
	pending, err := e.engine.Resume(context.Background())
	if err != nil || len(pending) != 1 || pending[0].Tool != "mcp:google-maps/maps_directions" {
		t.Fatalf("after restart: %+v %v", pending, err)
	}
	if _, err := e.engine.Decide(context.Background(), pending[0].ID, "console", true, false); err != nil {
		t.Fatal(err)
	}
	a := <-orphans
	e.llm.Push(fakellm.Step{Text: "Take the tram."})
	r, err := e.rt.Continue(context.Background(), a)
	if err != nil || r.Text != "Take the tram." {
		t.Fatalf("continue: %+v %v", r, err)
	}
	if !slices.Equal(*ran, []string{"mcp:google-maps/maps_directions"}) {
		t.Errorf("MCP calls that ran: %v; results the model read: %q", *ran, e.lastResults(t))
	}
}

// TestEveryServerRecoverableC8: whatever the gate misses can be had one
// step later. For every connected server of the 17-server snapshot, a
// message the gate offers nothing for is answered with that server's tool:
// the stable prompt names the server among the services, the model asks
// for it by the name the prompt shows, and its next call runs the tool.
func TestEveryServerRecoverableC8(t *testing.T) {
	e, _ := recoverEnv(t, store.Agent{Name: "default"})
	plan := e.rt.Catalog().Plan(catalog.Policy{Agent: "default"})
	services := plan.Services()
	if len(services) < 17 {
		t.Fatalf("%d services listed; the snapshot connects 17", len(services))
	}
	for _, srv := range services {
		if srv.ID == "ops" {
			continue // the test's own server with a never-list tool
		}
		t.Run(srv.ID, func(t *testing.T) {
			e, _ := recoverEnv(t, store.Agent{Name: "default"})
			var tool string
			for _, cp := range e.rt.Catalog().Capabilities() {
				if cp.Server == srv.ID && !catalog.OnNeverList(cp.Tool) {
					tool = cp.ID
					break
				}
			}
			if tool == "" {
				t.Fatalf("%s has no tool an agent may have", srv.ID)
			}
			args, _ := json.Marshal(map[string]string{"action": "tools", "service": srv.ID})
			e.llm.Push(
				fakellm.Step{ToolCalls: []fakellm.ToolCall{call(skillbook.ID, string(args))}},
				fakellm.Step{ToolCalls: []fakellm.ToolCall{call(tool, `{}`)}},
				fakellm.Step{Text: "Done."},
			)
			r := e.turnAs(t, "default", vague)
			reqs := e.llm.Requests()
			if !strings.Contains(reqs[0].System, srv.ID) {
				t.Errorf("the prompt does not name %s among the services", srv.ID)
			}
			if slices.ContainsFunc(reqs[0].Tools, func(n string) bool { return strings.HasPrefix(n, "mcp__") }) {
				t.Fatalf("precondition: the gate offered MCP tools for %q", vague)
			}
			if len(reqs) != 3 || !slices.Contains(reqs[1].Tools, call(tool, "").Name) {
				t.Fatalf("the request after asking does not offer %s", tool)
			}
			// The call passes the "offered this turn" check; with {} it may
			// still miss the tool's required arguments, which is the
			// schema's refusal, checked after.
			if r.Text != "Done." || len(r.Calls) != 2 || strings.Contains(r.Calls[1].Outcome, "not offered") {
				t.Errorf("turn %+v", r)
			}
		})
	}
}
