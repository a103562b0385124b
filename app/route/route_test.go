package route_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/app/route"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/skills"
)

// testCatalog holds a connected server "gh" of plugin github, a server
// "boxy" of plugin box that is not connected, seven app-control tools on
// the never-list and the wiki with per-action tiers.
func testCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	c := catalog.New()
	for _, cp := range append(catalog.AppControlTools(), catalog.Capability{ID: "builtin:wiki", Description: "Markdown notes", Connected: true, Tier: catalog.TierMonitor,
		ActionTiers: map[string]catalog.Tier{"list": catalog.TierSafe, "read": catalog.TierSafe, "delete": catalog.TierAsk}}) {
		if err := c.Add(cp); err != nil {
			t.Fatal(err)
		}
	}
	tools := []catalog.SnapshotTool{{Name: "list_issues", Description: "List issues of a repository.", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	if err := c.SetServer(catalog.Server{ID: "gh", Title: "GitHub", Plugin: "github", Connected: true}, tools); err != nil {
		t.Fatal(err)
	}
	if err := c.SetServer(catalog.Server{ID: "boxy", Plugin: "box", Connected: false}, []catalog.SnapshotTool{{Name: "upload", Description: "Upload a file."}}); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestExplainJSONFieldsC7 pins `route --json`'s object: its field names in
// their order, an empty skills list as [] and a skill of no plugin as null.
func TestExplainJSONFieldsC7(t *testing.T) {
	p := route.Planner{Plan: testCatalog(t).View().Plan(catalog.Policy{Agent: "default"})}
	ex := p.Explain("list the issues\xff")
	b, err := json.Marshal(ex.Output)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{"{\"message\":\"list the issues\ufffd\",\"agent\":\"default\",\"mcp\":[", `],"tools":["builtin:wiki"`, `"skills":[],"schema_tokens":`, `,"on_request":[]}`} {
		if !strings.Contains(got, want) {
			t.Errorf("route --json = %s\nlacks %s", got, want)
		}
	}
	if ex.SchemaTokens <= 0 || len(ex.Tools) != len(ex.Output.Tools) {
		t.Errorf("schema tokens %d, tools %d vs %d", ex.SchemaTokens, len(ex.Tools), len(ex.Output.Tools))
	}
	p.Ranker = skills.NewRanker([]*skills.Skill{{Name: "humanizer", Description: "Make text sound human.", Words: []string{"humanize"}, Does: skills.KindInstructions}})
	b, _ = json.Marshal(p.Explain("humanize this").Output)
	if !strings.Contains(string(b), `"skills":[{"id":"skill:humanizer","plugin":null,"score":`) {
		t.Errorf("a skill of no plugin: %s", b)
	}
}

// TestExplainNeedsAttentionP4C7: a server of a plugin whose sign-in needs
// renewing is explained with the command that renews it.
func TestExplainNeedsAttentionP4C7(t *testing.T) {
	p := route.Planner{Plan: testCatalog(t).View().Plan(catalog.Policy{Agent: "default"}), Attention: map[string]bool{"box": true}}
	for _, m := range p.Explain("upload the file to box").MCP {
		if m.Server == "boxy" && (m.Offered || !strings.Contains(m.Because, "jarvisbot plugins signin box")) {
			t.Errorf("boxy: %+v, want the renewal hint", m)
		}
	}
}

// TestExplainWithheldGroupedC7: withheld capabilities are grouped by
// reason in the order the steps apply, six ids shown and the rest counted.
func TestExplainWithheldGroupedC7(t *testing.T) {
	p := route.Planner{Plan: testCatalog(t).View().Plan(catalog.Policy{Agent: "default"})}
	ex := p.Explain("hello")
	never := len(catalog.AppControlTools())
	if len(ex.Withheld) == 0 || ex.Withheld[0].Reason != catalog.ReasonNever {
		t.Fatalf("withheld = %+v, want the never-list first", ex.Withheld)
	}
	if g := ex.Withheld[0]; len(g.IDs) != min(never, 6) || g.More != max(never-6, 0) {
		t.Errorf("never-list group shows %d and %d more, want %d in all", len(g.IDs), g.More, never)
	}
}

// TestTierTextC2: a tool with per-action tiers shows each tier's actions.
func TestTierTextC2(t *testing.T) {
	cp, _ := testCatalog(t).View().Capability("builtin:wiki")
	if got := route.TierText(cp); got != "list, read: safe; delete: ask" {
		t.Errorf("TierText = %q", got)
	}
	if got := route.TierText(&catalog.Capability{Tier: catalog.TierMonitor}); got != "monitor" {
		t.Errorf("TierText = %q", got)
	}
}

// TestExplainOnRequestC8: route names the servers the agent may use that
// the turn did not offer, which the model can still ask for; an offered
// server, one not connected and one the agent may not use are not among
// them.
func TestExplainOnRequestC8(t *testing.T) {
	c := testCatalog(t)
	if err := c.SetServer(catalog.Server{ID: "maps", Title: "Maps", Connected: true}, []catalog.SnapshotTool{{Name: "directions", Description: "Directions between two places."}}); err != nil {
		t.Fatal(err)
	}
	v := c.View()
	for _, tt := range []struct {
		policy catalog.Policy
		msg    string
		want   string
	}{
		{catalog.Policy{Agent: "default"}, "hello there", `"on_request":["gh","maps"]`},
		{catalog.Policy{Agent: "default"}, "list the issues of the repository on GitHub", `"on_request":["maps"]`},
		{catalog.Policy{Agent: "default", Block: []string{"mcp:maps"}}, "hello there", `"on_request":["gh"]`},
	} {
		b, _ := json.Marshal(route.Planner{Plan: v.Plan(tt.policy)}.Explain(tt.msg).Output)
		if !strings.HasSuffix(string(b), tt.want+"}") {
			t.Errorf("%q with %v: %s\nwant it to end with %s", tt.msg, tt.policy.Block, b, tt.want)
		}
	}
}
