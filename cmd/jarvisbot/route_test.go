package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/app/apptest"
	"github.com/jarvisbot/jarvisbot/app/route"

	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/fixtures"
)

// testEnv is a fake environment whose every directory is a temp dir.
type testEnv struct {
	vars map[string]string
	// clock is the schedule's clock for in-process commands: pinned to a
	// quiet hour (noon) so that no shipped skill comes due during a test.
	clock *clock.Fake
}

func newTestEnv(t testing.TB) *testEnv {
	t.Helper()
	return &testEnv{clock: clock.NewFake(apptest.Noon()), vars: apptest.Vars(t)}
}

func (e *testEnv) getenv(k string) string { return e.vars[k] }

// app is the environment as an app with the given streams.
func (e *testEnv) app(stdin io.Reader, stdout, stderr io.Writer) *cli {
	return &cli{stdin: stdin, stdout: stdout, Env: app.Env{Stderr: stderr, Getenv: e.getenv, Environ: e.environ, Clock: e.clock}}
}

// writeConfig writes a config file and points JARVIS_CONFIG at it.
func (e *testEnv) writeConfig(t *testing.T, yaml string) {
	t.Helper()
	p := filepath.Join(filepath.Dir(e.vars["JARVIS_DATA_DIR"]), "config.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	e.vars["JARVIS_CONFIG"] = p
}

// jarvis runs one command line in-process and returns exit code, stdout
// and stderr.
func (e *testEnv) jarvis(t testing.TB, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, e.app(strings.NewReader(stdin), &out, &errb))
	return code, out.String(), errb.String()
}

// mustJarvis runs one command line like jarvis and fails the test unless
// it exits 0; it returns stdout.
func (e *testEnv) mustJarvis(t testing.TB, stdin string, args ...string) string {
	t.Helper()
	code, out, errOut := e.jarvis(t, stdin, args...)
	if code != 0 {
		t.Fatalf("jarvisbot %s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

func decodeRoutes(t *testing.T, out string) []route.Output {
	t.Helper()
	var res []route.Output
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r route.Output
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("route --json printed a line that is not JSON: %q: %v", line, err)
		}
		res = append(res, r)
	}
	return res
}

// TestRouteJSONC7 pins the documented `route --json` interface.
func TestRouteJSONC7(t *testing.T) {
	e := newTestEnv(t)
	seed := fixtures.Path(t, "catalog-seed.json")
	code, out, errOut := e.jarvis(t, "", "route", "--catalog", seed, "--json", "Raise a pull request with the signup patch")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"message", "agent", "mcp", "tools", "skills"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("route --json lacks %q: %s", k, out)
		}
	}
	r := decodeRoutes(t, out)[0]
	if r.Agent != "default" || r.Message != "Raise a pull request with the signup patch" {
		t.Errorf("agent %q message %q", r.Agent, r.Message)
	}
	if !slices.Contains(r.Tools, "mcp:github/create_pull_request") || slices.Contains(r.Tools, "mcp:notebooklm-mcp/notebook_list") {
		t.Errorf("tools = %v", r.Tools)
	}
	if len(r.Tools) < 3 || !slices.Equal(r.Tools[:3], []string{"builtin:browser", "builtin:skills", "builtin:wiki"}) {
		t.Errorf("first tools %v, want builtin:browser, builtin:skills, builtin:wiki (the stable prefix comes first)", r.Tools[:min(3, len(r.Tools))])
	}
	for _, id := range r.Tools {
		if strings.Contains(id, "spawn_worker") || strings.Contains(id, "control_app") {
			t.Errorf("never-list tool %s offered", id)
		}
	}
	got := map[string]bool{}
	for _, m := range r.MCP {
		got[m.Server] = m.Offered
		if m.Because == "" {
			t.Errorf("%s: no reason given", m.Server)
		}
	}
	if !got["github"] || got["notebooklm-mcp"] {
		t.Errorf("mcp = %+v", r.MCP)
	}
}

// TestRouteStdinC7: `-` answers one message per line, in order, including
// empty lines, invalid UTF-8 and a 100 KB line.
func TestRouteStdinC7(t *testing.T) {
	e := newTestEnv(t)
	seed := fixtures.Path(t, "catalog-seed.json")
	lines := []string{"In NotebookLM, make flashcards", "", "Tell me a joke", "bad \xff utf8 repo", strings.Repeat("word ", 20000), "ctl\x01\x02 chars"}
	code, out, errOut := e.jarvis(t, strings.Join(lines, "\n")+"\n", "route", "--catalog", seed, "--json", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	res := decodeRoutes(t, out)
	if len(res) != len(lines) {
		t.Fatalf("%d answers for %d lines", len(res), len(lines))
	}
	if !slices.Contains(res[0].Tools, "mcp:notebooklm-mcp/flashcards_create") {
		t.Errorf("line 1 tools %v", res[0].Tools)
	}
	for i, r := range res[1:3] {
		for _, id := range r.Tools {
			if strings.HasPrefix(id, "mcp:") {
				t.Errorf("line %d %q offered %s", i+2, lines[i+1], id)
			}
		}
	}
}

func TestRouteHumanOutput(t *testing.T) {
	e := newTestEnv(t)
	seed := fixtures.Path(t, "catalog-seed.json")
	code, out, _ := e.jarvis(t, "", "route", "--catalog", seed, "List the open issues of my blog repository")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"+ github: offered", "- notebooklm-mcp: not offered", "never-list", "Tools the model gets"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestRouteAgentsFromConfig(t *testing.T) {
	e := newTestEnv(t)
	e.writeConfig(t, `
agents:
  reviewer:
    description: reviews pull requests in my GitHub repos
    block: [mcp:github/merge_pull_request]
  narrow:
    description: only notes
    allow: [builtin:wiki]
mcp:
  notebooklm-mcp:
    aliases: [nlm]
  github:
    card: [kubernetes, pull request]
tiers:
  builtin:wiki: ask
`)
	seed := fixtures.Path(t, "catalog-seed.json")
	_, out, errOut := e.jarvis(t, "", "route", "--catalog", seed, "--agent", "reviewer", "--json", "Tell me a joke")
	r := decodeRoutes(t, out)[0]
	if !slices.Contains(r.Tools, "mcp:github/create_pull_request") || slices.Contains(r.Tools, "mcp:github/merge_pull_request") {
		t.Errorf("reviewer (focus GitHub, merge blocked) got %d tools: %v %s", len(r.Tools), r.Tools, errOut)
	}
	_, out, _ = e.jarvis(t, "", "route", "--catalog", seed, "--agent", "narrow", "--json", "open a pull request")
	if r := decodeRoutes(t, out)[0]; !slices.Equal(r.Tools, []string{"builtin:wiki"}) {
		t.Errorf("narrow agent got %v", r.Tools)
	}
	_, out, _ = e.jarvis(t, "", "route", "--catalog", seed, "--json", "ask nlm for a summary")
	if r := decodeRoutes(t, out)[0]; !slices.Contains(r.Tools, "mcp:notebooklm-mcp/notebook_query") {
		t.Errorf("config alias nlm did not reach NotebookLM: %v", r.Tools)
	}
	_, out, _ = e.jarvis(t, "", "route", "--catalog", seed, "--json", "how is kubernetes doing")
	if r := decodeRoutes(t, out)[0]; !slices.Contains(r.Tools, "mcp:github/create_pull_request") {
		t.Errorf("config card word kubernetes did not reach GitHub: %v", r.Tools)
	}
	code, _, errOut := e.jarvis(t, "", "route", "--agent", "nobody", "hi")
	if code == 0 || !strings.Contains(errOut, `no agent named "nobody"`) {
		t.Errorf("unknown agent: exit %d, %q", code, errOut)
	}
}

func TestRouteBadInput(t *testing.T) {
	e := newTestEnv(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"format":"jarvisbot-catalog-snapshot/1","mcp_servers":[{"name":"x y"}]}`), 0o600)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no message", []string{"route"}, "give a message"},
		{"missing snapshot", []string{"route", "--catalog", filepath.Join(dir, "nope.json"), "hi"}, "open catalog snapshot"},
		{"directory snapshot", []string{"route", "--catalog", dir, "hi"}, "directory"},
		{"invalid snapshot", []string{"route", "--catalog", bad, "hi"}, "mcp_servers[0]"},
		{"unknown flag", []string{"route", "--bogus", "hi"}, "bogus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := e.jarvis(t, "", tt.args...)
			if code != 2 || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, tt.want)
			}
		})
	}
}

func TestEvalGate(t *testing.T) {
	e := newTestEnv(t)
	code, out, errOut := e.jarvis(t, "", "eval", "gate", fixtures.Path(t, "gate-dev.jsonl"), "--catalog", fixtures.Path(t, "catalog-seed.json"), "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s struct {
		Cases     int     `json:"cases"`
		Exact     float64 `json:"exact_match_rate"`
		Recall    float64 `json:"server_recall"`
		AllTools  int     `json:"all_mcp_tools"`
		ToolsTurn float64 `json:"mean_mcp_tools_per_turn"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if s.Cases == 0 || s.AllTools != 77 || s.ToolsTurn >= 77 || s.Recall < 100 {
		t.Errorf("eval figures %+v", s)
	}
	code, out, _ = e.jarvis(t, "", "eval", "gate", fixtures.Path(t, "gate-dev.jsonl"), "--catalog", fixtures.Path(t, "catalog-seed.json"))
	if code != 0 || !strings.Contains(out, "exact match:") || !strings.Contains(out, "schema tokens per turn") {
		t.Errorf("eval text output:\n%s", out)
	}
}

// TestEvalReplay: `eval replay` (and `eval --replay`) replays pairs of
// requests and hard negatives, in one file or several, and reports recall
// and exact on the later requests before and after learning, and what the
// negatives brought, as text or as JSON; a set it cannot read exits 2 with
// the line to fix.
func TestEvalReplay(t *testing.T) {
	e := newTestEnv(t)
	pairs, negatives := fixtures.ReplayPath(t, "pairs.jsonl"), fixtures.ReplayPath(t, "negatives.jsonl")
	snap := fixtures.Path(t, "catalog-extended.json")
	code, out, errOut := e.jarvis(t, "", "eval", "--replay", pairs, negatives, "--catalog", snap, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s struct {
		Pairs        int     `json:"pairs"`
		Recovered    int     `json:"recovered"`
		RecallBefore float64 `json:"recall_before"`
		RecallAfter  float64 `json:"recall_after"`
		ExactAfter   float64 `json:"exact_after"`
		Negatives    int     `json:"hard_negatives"`
		FalseBefore  *int    `json:"false_offers_before"`
		FalseAfter   *int    `json:"false_offers_after"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if s.Pairs != 40 || s.Negatives != 12 || s.Recovered == 0 || s.RecallAfter <= s.RecallBefore || s.ExactAfter == 0 || s.FalseBefore == nil || s.FalseAfter == nil {
		t.Errorf("replay figures %s", out)
	}
	code, out, _ = e.jarvis(t, "", "eval", "replay", pairs, negatives, "--catalog", snap)
	if code != 0 || !strings.Contains(out, "recall, second request:") || !strings.Contains(out, "hard negatives:") || !strings.Contains(out, "MISS "+pairs+" line ") {
		t.Errorf("replay text output:\n%s", out)
	}
	code, _, errOut = e.jarvis(t, "", "eval", "replay", pairs, "--catalog", fixtures.Path(t, "catalog-seed.json"))
	if code != 0 || !strings.Contains(errOut, "pairs want the server google-maps, which the catalog does not have") {
		t.Errorf("replayed over a catalog without their servers: exit %d, stderr %q", code, errOut)
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"server": "google-maps", "first": "Wo ist die Apotheke?"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := e.jarvis(t, "", "eval", "replay", bad, "--catalog", snap); code != 2 || !strings.Contains(errOut, "bad.jsonl line 1") {
		t.Errorf("a pair without its second request: exit %d, %s", code, errOut)
	}
	if code, _, errOut := e.jarvis(t, "", "eval", "replay"); code != 2 || !strings.Contains(errOut, "PAIRS.jsonl") {
		t.Errorf("no set: exit %d, %s", code, errOut)
	}
}

func TestCatalogExportRoundTrip(t *testing.T) {
	e := newTestEnv(t)
	out := filepath.Join(t.TempDir(), "export.json")
	e.mustJarvis(t, "", "catalog", "export", "--catalog", fixtures.Path(t, "catalog-seed.json"), "-o", out)
	code, got, errOut := e.jarvis(t, "", "route", "--catalog", out, "--json", "Build flashcards on the Cold War for revision")
	if code != 0 || !strings.Contains(got, "mcp:notebooklm-mcp/flashcards_create") {
		t.Errorf("route on the export: exit %d %s %s", code, got, errOut)
	}
	code, card, _ := e.jarvis(t, "", "catalog", "card", "notebooklm-mcp", "--catalog", fixtures.Path(t, "catalog-seed.json"))
	if code != 0 || !strings.Contains(card, "flashcards") || strings.Contains(card, "website") {
		t.Errorf("derived card:\n%s", card)
	}
}

// TestRouteSkillsS3: the owner's skills in the data dir are ranked for the
// message and their entry follows what they do; a broken SKILL.md is
// skipped with a warning, never a failure.
func TestRouteSkillsS3(t *testing.T) {
	e := newTestEnv(t)
	dir := filepath.Join(e.vars["JARVIS_DATA_DIR"], "skills")
	write := func(name, body string) {
		os.MkdirAll(filepath.Join(dir, name), 0o700)
		os.WriteFile(filepath.Join(dir, name, "SKILL.md"), []byte(body), 0o600)
	}
	write("humanizer", "---\nname: humanizer\ndescription: Rewrite text so it sounds like a person wrote it.\nmetadata:\n  jarvisbot.words: humanize, sound human, less robotic\n---\nPrefer short sentences.\n")
	write("calendar-brief", "---\nname: calendar-brief\ndescription: Summarise the owner's calendar.\nmetadata:\n  jarvisbot.plugin: google-calendar\n  jarvisbot.words: calendar, appointment\n  jarvisbot.does: tools\n---\nRead the calendar first.\n")
	write("broken", "---\nname: other-name\n---\n")
	code, out, errOut := e.jarvis(t, "", "route", "--json", "make this email sound human please")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	r := decodeRoutes(t, out)[0]
	if len(r.Skills) == 0 || r.Skills[0].ID != "skill:humanizer" || r.Skills[0].Entry != "take-over" || r.Skills[0].Plugin != nil {
		t.Errorf("skills = %+v", r.Skills)
	}
	if !strings.Contains(errOut, "skipping skill broken") {
		t.Errorf("no warning for the broken skill: %q", errOut)
	}
	_, out, _ = e.jarvis(t, "", "route", "--json", "what appointments are in my calendar?")
	r = decodeRoutes(t, out)[0]
	if len(r.Skills) == 0 || r.Skills[0].ID != "skill:calendar-brief" || r.Skills[0].Entry != "join" || r.Skills[0].Plugin == nil || *r.Skills[0].Plugin != "google-calendar" {
		t.Errorf("skills = %+v", r.Skills)
	}
}
