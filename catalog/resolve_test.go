package catalog_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/catalog"
)

func ids(tools []*catalog.Capability) []string {
	out := make([]string, len(tools))
	for i, c := range tools {
		out[i] = c.ID
	}
	return out
}

// seedWithBuiltins is the design note's catalog: the seed snapshot's 77 MCP
// tools plus builtins, the app-control tools and a plugin.
func seedWithBuiltins(t testing.TB) *catalog.Catalog {
	c := loadSnapshot(t, "catalog-seed.json")
	for _, cp := range append(catalog.AppControlTools(),
		catalog.Capability{ID: "builtin:wiki", Description: "Markdown notes", Connected: true, Tier: catalog.TierMonitor},
		catalog.Capability{ID: "plugin:gmail", Description: "Read and send Gmail", Connected: true},
		catalog.Capability{ID: "plugin:spotify", Description: "Play music", Connected: false},
		catalog.Capability{ID: "cli:gh", Description: "GitHub CLI", Connected: true, Tier: catalog.TierAsk},
		catalog.Capability{ID: "skill:humanizer", Description: "Write like a person", Connected: true},
	) {
		if err := c.Add(cp); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// TestResolveStepsC3 pins the four steps and their order.
func TestResolveStepsC3(t *testing.T) {
	c := seedWithBuiltins(t)
	v := c.View()
	var turn catalog.Turn

	t.Run("grant all, deny not connected, never-list and skills", func(t *testing.T) {
		pl := v.Plan(catalog.Policy{Agent: "default"})
		pl.Turn("What's the weather tomorrow?", &turn)
		want := []string{"builtin:wiki", "plugin:gmail", "cli:gh"}
		if got := ids(turn.Tools); !slices.Equal(got, want) {
			t.Errorf("tools = %v, want %v", got, want)
		}
	})
	t.Run("allow-list", func(t *testing.T) {
		pl := v.Plan(catalog.Policy{Agent: "a", Allow: []string{"builtin:wiki", "mcp:github"}})
		pl.Turn("open a pull request", &turn)
		got := ids(turn.Tools)
		if got[0] != "builtin:wiki" || slices.Contains(got, "plugin:gmail") || len(got) != 1+45 {
			t.Errorf("tools = %v (%d), want the wiki and GitHub's 45", got[:min(len(got), 3)], len(got))
		}
	})
	t.Run("block-list", func(t *testing.T) {
		pl := v.Plan(catalog.Policy{Agent: "a", Block: []string{"mcp:github/merge_pull_request", "cli:*"}})
		pl.Turn("open a pull request", &turn)
		got := ids(turn.Tools)
		if slices.Contains(got, "mcp:github/merge_pull_request") || slices.Contains(got, "cli:gh") || !slices.Contains(got, "mcp:github/create_pull_request") {
			t.Errorf("block-list not applied: %v", got)
		}
	})
	t.Run("whole server blocked", func(t *testing.T) {
		pl := v.Plan(catalog.Policy{Agent: "a", Block: []string{"mcp:github/*"}})
		pl.Turn("open a pull request", &turn)
		found := false
		for _, ch := range turn.Explain() {
			if ch.Server == "github" {
				found = true
				if ch.Offered || !strings.Contains(ch.Because, "no tool") {
					t.Errorf("github: %+v", ch)
				}
			}
		}
		if !found {
			t.Errorf("no decision about the blocked github server: %+v", turn.Explain())
		}
	})
	t.Run("focus first, MCP after the stable prefix", func(t *testing.T) {
		pl := v.Plan(catalog.Policy{Agent: "mail", Focus: []string{"plugin:gmail"}})
		pl.Turn("Build flashcards on the Cold War for revision", &turn)
		got := ids(turn.Tools)
		if got[0] != "plugin:gmail" {
			t.Errorf("first tool %s, want the focus plugin:gmail", got[0])
		}
		n := len(pl.Prefix())
		for i, id := range got {
			if isMCP := strings.HasPrefix(id, "mcp:"); isMCP != (i >= n) {
				t.Errorf("tool %d %s on the wrong side of the prefix (%d)", i, id, n)
			}
		}
		if len(got)-n != 32 {
			t.Errorf("%d MCP tools, want NotebookLM's 32", len(got)-n)
		}
	})
	t.Run("focused server is always offered and part of the prefix", func(t *testing.T) {
		pl := v.Plan(catalog.Policy{Agent: "reviewer", Focus: []string{"mcp:github/*"}})
		pl.Turn("Tell me a joke", &turn)
		if len(turn.Tools) != len(pl.Prefix()) || !slices.Contains(ids(turn.Tools), "mcp:github/create_pull_request") {
			t.Errorf("focused server's tools missing from the prefix: %d tools", len(turn.Tools))
		}
	})
}

// TestPrefixByteIdenticalC3: the stable part of the list is the same bytes
// on every turn, whatever the message, so providers can cache it.
func TestPrefixByteIdenticalC3(t *testing.T) {
	c := seedWithBuiltins(t)
	pl := c.View().Plan(catalog.Policy{Agent: "default", Focus: []string{"plugin:gmail"}})
	render := func(tools []*catalog.Capability) string {
		var b strings.Builder
		for _, cp := range tools {
			j, _ := json.Marshal(map[string]any{"name": cp.Name, "description": cp.Description, "input_schema": cp.InputSchema})
			b.Write(j)
		}
		return b.String()
	}
	var first string
	for i, msg := range []string{"Tell me a joke", "open a pull request", "make flashcards in NotebookLM", ""} {
		var turn catalog.Turn
		pl.Turn(msg, &turn)
		got := render(turn.Tools[:len(pl.Prefix())])
		if i == 0 {
			first = got
		} else if got != first {
			t.Fatalf("prefix for %q differs from the first turn's", msg)
		}
	}
	// A fresh view of an unchanged catalog gives the same bytes too.
	c2 := seedWithBuiltins(t)
	var turn catalog.Turn
	c2.View().Plan(catalog.Policy{Agent: "default", Focus: []string{"plugin:gmail"}}).Turn("x", &turn)
	if render(turn.Tools) != first {
		t.Error("a rebuilt catalog orders its prefix differently")
	}
}

// TestNeverListEverySpellingC4: tools that spawn workers, switch providers,
// add MCP servers or control the app never reach an agent, however their
// name is written and wherever they come from.
func TestNeverListEverySpellingC4(t *testing.T) {
	spellings := []string{"spawn-worker", "spawn_worker", "spawnWorker", "Spawn Worker", "SPAWN_WORKER", "SpawnWorker",
		"switch-provider", "switchProvider", "Switch Provider", "add_mcp_server", "addMcpServer", "Add MCP Server",
		"control-app", "controlApp", "Control App"}
	for _, s := range spellings {
		if !catalog.OnNeverList(s) {
			t.Errorf("OnNeverList(%q) = false", s)
		}
	}
	for _, s := range []string{"spawn", "worker_status", "create_pull_request", "switch", ""} {
		if catalog.OnNeverList(s) {
			t.Errorf("OnNeverList(%q) = true", s)
		}
	}
	c := seedWithBuiltins(t)
	var tools []catalog.SnapshotTool
	for _, s := range spellings {
		tools = append(tools, catalog.SnapshotTool{Name: s})
	}
	tools = append(tools, catalog.SnapshotTool{Name: "worker_status"})
	if err := c.SetServer(catalog.Server{ID: "rogue", Title: "Rogue", Connected: true}, tools); err != nil {
		t.Fatal(err)
	}
	v := c.View()
	for _, pol := range []catalog.Policy{
		{Agent: "default"},
		{Agent: "allow-all", Allow: []string{"*"}, Focus: []string{"mcp:rogue/*", "builtin:spawn_worker"}},
	} {
		var turn catalog.Turn
		v.Plan(pol).Turn("ask rogue to spawn a worker, switch provider, add mcp server, control app", &turn)
		got := ids(turn.Tools)
		for _, id := range got {
			name := id[strings.LastIndexAny(id, ":/")+1:]
			if catalog.OnNeverList(name) {
				t.Errorf("agent %s was offered %s", pol.Agent, id)
			}
		}
		if !slices.Contains(got, "mcp:rogue/worker_status") {
			t.Errorf("agent %s: harmless rogue tool missing: %v", pol.Agent, got)
		}
	}
}

// TestTiersC2: monitor by default; annotations only raise unless trusted;
// the owner's word wins.
func TestTiersC2(t *testing.T) {
	yes, no := true, false
	tools := []catalog.SnapshotTool{
		{Name: "plain"},
		{Name: "destroy", Annotations: &catalog.Annotations{DestructiveHint: &yes}},
		{Name: "look", Annotations: &catalog.Annotations{ReadOnlyHint: &yes}},
		{Name: "safeclaim", Annotations: &catalog.Annotations{ReadOnlyHint: &yes, DestructiveHint: &no}},
	}
	tests := []struct {
		trusted  bool
		override map[string]catalog.Tier
		want     map[string]catalog.Tier
	}{
		{false, nil, map[string]catalog.Tier{"plain": "monitor", "destroy": "ask", "look": "monitor", "safeclaim": "monitor"}},
		{true, nil, map[string]catalog.Tier{"plain": "monitor", "destroy": "ask", "look": "safe", "safeclaim": "safe"}},
		{false, map[string]catalog.Tier{"mcp:s/destroy": "safe", "mcp:s/plain": "ask"},
			map[string]catalog.Tier{"plain": "ask", "destroy": "safe", "look": "monitor"}},
	}
	for i, tt := range tests {
		c := catalog.New()
		if err := c.SetServer(catalog.Server{ID: "s", Trusted: tt.trusted, Connected: true}, tools); err != nil {
			t.Fatal(err)
		}
		for id, tier := range tt.override {
			if err := c.SetTier(id, tier); err != nil {
				t.Fatal(err)
			}
		}
		v := c.View()
		for name, want := range tt.want {
			cp, _ := v.Capability(catalog.MCPID("s", name))
			if cp.Tier != want {
				t.Errorf("case %d: %s tier %s, want %s", i, name, cp.Tier, want)
			}
		}
	}
	if err := catalog.New().SetTier("mcp:s/x", "maybe"); err == nil {
		t.Error("SetTier accepted an unknown tier")
	}
}

// TestFocusC6: focus comes from the agent's name and description, no model.
func TestFocusC6(t *testing.T) {
	v := seedWithBuiltins(t).View()
	tests := []struct {
		name, desc string
		want       []string
	}{
		{"inbox", "a daily overview of my Gmail inbox", []string{"plugin:gmail"}},
		{"reviewer", "reviews pull requests in my GitHub repos", []string{"mcp:github/*"}},
		{"student", "turns my notes into flashcards with NotebookLM", []string{"mcp:notebooklm-mcp/*"}},
		{"helper", "a friendly general assistant", nil},
	}
	for _, tt := range tests {
		got := v.Focus(tt.name, tt.desc)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Focus(%q, %q) = %v, want %v", tt.name, tt.desc, got, tt.want)
		}
	}
}

func TestCapabilityIDs(t *testing.T) {
	good := []string{"plugin:gmail", "mcp:github/create_pull_request", "skill:humanizer", "cli:gh", "builtin:wiki"}
	for _, id := range good {
		if _, _, err := catalog.ParseID(id); err != nil {
			t.Errorf("ParseID(%q): %v", id, err)
		}
	}
	for _, id := range []string{"", "gmail", "mcp:github", "mcp:/x", "tool:x", "plugin:"} {
		if _, _, err := catalog.ParseID(id); err == nil {
			t.Errorf("ParseID(%q) accepted", id)
		}
	}
}

// benchCatalog is ~200 capabilities: the seed's 77 MCP tools plus plugins,
// skills, CLI tools and builtins, as in the design note.
func benchCatalog(b *testing.B) *catalog.View {
	c := seedWithBuiltins(b)
	for i := 0; i < 40; i++ {
		_ = c.Add(catalog.Capability{ID: fmt.Sprintf("plugin:p%02d", i), Description: "a plugin tool", Connected: i%5 != 0})
		_ = c.Add(catalog.Capability{ID: fmt.Sprintf("skill:s%02d", i), Description: "a skill", Connected: true})
	}
	for i := 0; i < 30; i++ {
		_ = c.Add(catalog.Capability{ID: fmt.Sprintf("cli:tool%02d", i), Description: "a CLI", Connected: true, Tier: catalog.TierAsk})
	}
	for i := 0; i < 10; i++ {
		_ = c.Add(catalog.Capability{ID: fmt.Sprintf("builtin:b%02d", i), Description: "a builtin", Connected: true})
	}
	v := c.View()
	if n := len(v.Capabilities()); n < 190 {
		b.Fatalf("bench catalog has %d capabilities", n)
	}
	return v
}

var benchMessages = []string{
	"Which issues are still open in the website repo?",
	"What's the weather tomorrow?",
	"Erstell in NotebookLM einen Test zu meinen Notizen über Geometrie",
	"Raise a pull request with the signup patch",
}

// BenchmarkRoute is one turn's full resolution for an agent whose steps
// 1-3 are planned (the plan changes only with the catalog or the agent).
func BenchmarkRoute(b *testing.B) {
	pl := benchCatalog(b).Plan(catalog.Policy{Agent: "default", Block: []string{"cli:tool01"}, Focus: []string{"plugin:gmail"}})
	var turn catalog.Turn
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		pl.Turn(benchMessages[i%len(benchMessages)], &turn)
		i++
	}
}

// BenchmarkRouteCold plans steps 1-3 from scratch on every turn as well.
func BenchmarkRouteCold(b *testing.B) {
	v := benchCatalog(b)
	pol := catalog.Policy{Agent: "default", Block: []string{"cli:tool01"}, Focus: []string{"plugin:gmail"}}
	var turn catalog.Turn
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		v.Plan(pol).Turn(benchMessages[i%len(benchMessages)], &turn)
		i++
	}
}

// BenchmarkGate is step 4 alone.
func BenchmarkGate(b *testing.B) {
	g := benchCatalog(b).Gate()
	out := make([]catalog.Decision, 0, 8)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		out = g.Check(benchMessages[i%len(benchMessages)], out[:0])
		i++
	}
}

// BenchmarkGateExtended is the gate over 17 servers and 294 tools.
func BenchmarkGateExtended(b *testing.B) {
	g := loadSnapshot(b, "catalog-extended.json").View().Gate()
	out := make([]catalog.Decision, 0, 32)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		out = g.Check(benchMessages[i%len(benchMessages)], out[:0])
		i++
	}
}

// TestTurnManualsS3: a manual found for the message brings its plugin's
// servers only when the message's words point at no server.
func TestTurnManualsS3(t *testing.T) {
	pl := loadSnapshot(t, "catalog-extended.json").View().Plan(catalog.Policy{Agent: "default"})
	offered := func(msg string, manuals ...string) map[string]string {
		var tu catalog.Turn
		pl.Turn(msg, &tu, manuals...)
		out := map[string]string{}
		for _, ch := range tu.Explain() {
			if ch.Offered {
				out[ch.Server] = ch.Because
			}
		}
		return out
	}
	got := offered("Anything planned for Wednesday?", "google-calendar")
	if len(got) != 1 || !strings.Contains(got["google-calendar"], "manual of plugin google-calendar") {
		t.Errorf("paraphrase with the calendar manual: %v", got)
	}
	if got := offered("Anything planned for Wednesday?"); len(got) != 0 {
		t.Errorf("no manual, no words: %v", got)
	}
	// The words point at GitHub: a manual of another plugin adds nothing.
	got = offered("Raise a pull request with the signup patch", "google-calendar")
	if _, ok := got["google-calendar"]; ok || got["github"] == "" {
		t.Errorf("words decided, manual ignored: %v", got)
	}
	// A manual of a plugin with no server connected changes nothing.
	if got := offered("Anything planned for Wednesday?", "spotify"); len(got) != 0 {
		t.Errorf("unconnected plugin: %v", got)
	}
}

// TestTurnOfflineWantedC5: a server that is not connected yet is never
// offered, but the turn says which such servers its message wants (named,
// matched by words or a manual, or in focus; with a tool the agent may
// use), so the runtime can wait for one that is still starting.
func TestTurnOfflineWantedC5(t *testing.T) {
	c := catalog.New()
	tools := []catalog.SnapshotTool{{Name: "flashcards_create"}, {Name: "notebook_list"}}
	if err := c.SetServer(catalog.Server{ID: "notebooklm", Title: "NotebookLM", Plugin: "notebooklm"}, tools); err != nil {
		t.Fatal(err)
	}
	if err := c.SetServer(catalog.Server{ID: "weather", Title: "Weather"}, []catalog.SnapshotTool{{Name: "forecast_get"}}); err != nil {
		t.Fatal(err)
	}
	v := c.View()
	tests := []struct {
		name    string
		policy  catalog.Policy
		msg     string
		manuals []string
		want    []string
	}{
		{"named", catalog.Policy{Agent: "default"}, "make flashcards in NotebookLM", nil, []string{"notebooklm"}},
		{"small talk", catalog.Policy{Agent: "default"}, "how are you today?", nil, nil},
		{"manual", catalog.Policy{Agent: "default"}, "how are you today?", []string{"notebooklm"}, []string{"notebooklm"}},
		{"focus", catalog.Policy{Agent: "w", Focus: []string{"mcp:weather/*"}}, "how are you today?", nil, []string{"weather"}},
		{"blocked", catalog.Policy{Agent: "b", Block: []string{"mcp:notebooklm/*"}}, "make flashcards in NotebookLM", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tu catalog.Turn
			v.Plan(tt.policy).Turn(tt.msg, &tu, tt.manuals...)
			for _, cp := range tu.Tools {
				if cp.Kind == catalog.KindMCP {
					t.Errorf("an offline server's tool was offered: %s", cp.ID)
				}
			}
			if got := tu.Offline(tt.manuals...); !slices.Equal(got, tt.want) {
				t.Errorf("Offline() = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestGrantedSchemaBytesIsWhatOfferingAllCosts: the size without the gate
// counts every capability the agent is granted and can reach, and nothing
// withheld (never-list, not allowed, blocked, not connected, skills).
func TestGrantedSchemaBytesIsWhatOfferingAllCosts(t *testing.T) {
	v := seedWithBuiltins(t).View()
	for _, p := range []catalog.Policy{
		{Agent: "default"},
		{Agent: "a", Allow: []string{"builtin:wiki", "mcp:github"}},
		{Agent: "b", Block: []string{"mcp:notebooklm/*"}, Focus: []string{"mcp:github/*"}},
	} {
		pl := v.Plan(p)
		withheld := map[string]bool{}
		for _, w := range pl.Withheld() {
			withheld[w.ID] = true
		}
		want, n := 0, 0
		for _, cp := range v.Capabilities() {
			if !withheld[cp.ID] {
				want += cp.SchemaBytes()
				n++
			}
		}
		if got := pl.GrantedSchemaBytes(); got != want || want == 0 {
			t.Errorf("%+v: GrantedSchemaBytes = %d, want %d (%d capabilities)", p, got, want, n)
		}
	}
}
