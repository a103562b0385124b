package jarvisbot_test

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path"
	"strings"
	"testing"
)

// The layout is the architecture (SPEC "Top-level layout", STYLE.md "Which
// way dependencies point"): data flows channel → dispatcher → agents →
// catalog/skills/llm → store, and imports point the same way, downhill. This
// test fails when a package imports uphill, so the rule holds without anyone
// remembering it.

// layering is one rule: packages matching From may not import packages
// matching any of Not. Deep rules follow every import down (the package may
// not reach Not at all); the others look at direct imports only, for layers
// that legitimately reach a lower layer through the one above it.
type layering struct {
	From string
	Not  []string
	Deep bool
	Why  string
}

var layerings = []layering{
	{"channels", []string{"agents/...", "catalog/...", "skills/...", "plugins/...", "scheduler/...", "store/..."}, true,
		"a channel carries messages; it knows only the channel interface"},
	{"channels/console", []string{"agents/...", "catalog/...", "skills/...", "plugins/...", "scheduler/...", "store/..."}, true,
		"a channel adapter carries messages; the dispatcher meets the runtime"},
	{"channels/telegram", []string{"agents/...", "catalog/...", "skills/...", "plugins/...", "scheduler/...", "store/..."}, true,
		"a channel adapter carries messages; the dispatcher meets the runtime"},
	{"channels/discord", []string{"agents/...", "catalog/...", "skills/...", "plugins/...", "scheduler/...", "store/..."}, true,
		"a channel adapter carries messages; the dispatcher meets the runtime"},
	{"desk", []string{"catalog/...", "agents/llm", "skills/...", "plugins/..."}, false,
		"the dispatcher hands messages to the runtime; tools and models are the runtime's business"},
	{"catalog/...", []string{"channels/...", "agents/...", "scheduler/..."}, true,
		"the catalog decides with no model and knows no chat platform"},
	{"skills/...", []string{"channels/...", "agents/...", "scheduler/..."}, true,
		"skills are chosen with no model and know no chat platform"},
	{"plugins/...", []string{"channels/...", "agents/...", "scheduler/..."}, true,
		"a plugin is a format and a sign-in; it knows no chat or model"},
	{"agents/llm", []string{"channels/...", "store/...", "catalog/...", "skills/...", "plugins/...", "scheduler/..."}, true,
		"a provider adapter knows nothing of chats, storage or tools' sources"},
	{"scheduler/...", []string{"channels/...", "agents/llm"}, true,
		"the scheduler fires runs; delivery goes through the dispatcher's interface"},
	{"store/...", []string{"channels/...", "agents/...", "catalog/...", "skills/...", "plugins/...", "scheduler/...", "internal/config"}, true,
		"the store is the floor: persistence and domain types only"},
	{"mcp/surface", []string{"channels/...", "agents/...", "catalog/...", "skills/...", "plugins/...", "scheduler/...", "store/...", "mcp/backend"}, false,
		"the MCP surface decides what an app may ask; the answers are its Backend's"},
	// The backend is a door onto the app layer, which holds the session
	// and its channels: it may depend on channels through app, never by
	// importing one itself.
	{"mcp/backend", []string{"channels/..."}, false,
		"the MCP surface's backend reaches the owner's chat only through the app layer's NotifyOwner"},
	{"...", []string{"cmd/...", "internal/fakes/..."}, true,
		"nothing but tests reaches the command line or the protocol fakes"},
}

type listed struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

func TestImportsPointDownhill(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the go tool is needed to list imports: %v", err)
	}
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports,Deps", "./...").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	const module = "github.com/jarvisbot/jarvisbot"
	var pkgs []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("reading go list: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages; the test is not looking at the module", len(pkgs))
	}
	rel := func(p string) (string, bool) {
		if p == module {
			return ".", true
		}
		r, ok := strings.CutPrefix(p, module+"/")
		return r, ok
	}
	for _, p := range pkgs {
		from, _ := rel(p.ImportPath)
		if strings.HasPrefix(from, "cmd/") || strings.HasPrefix(from, "internal/fakes/") || strings.HasPrefix(from, "scripts/") {
			continue // the edges: wiring, test doubles, tools
		}
		for _, r := range layerings {
			if !matches(r.From, from) {
				continue
			}
			imports := p.Imports
			if r.Deep {
				imports = p.Deps
			}
			for _, imp := range imports {
				to, ok := rel(imp)
				if !ok || to == from {
					continue
				}
				for _, not := range r.Not {
					if matches(not, to) {
						t.Errorf("%s imports %s: %s", from, to, r.Why)
					}
				}
			}
		}
	}
}

// matches reports whether the module-relative package p matches pattern,
// where "x/..." is x and everything below it and "..." is every package.
func matches(pattern, p string) bool {
	if pattern == "..." {
		return true
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return p == base || strings.HasPrefix(p, base+"/")
	}
	return path.Clean(pattern) == p
}

func TestMatches(t *testing.T) {
	for _, c := range []struct {
		pattern, p string
		want       bool
	}{
		{"...", "agents", true},
		{"agents/...", "agents", true},
		{"agents/...", "agents/llm", true},
		{"agents/...", "agentsx", false},
		{"agents/llm", "agents/llm", true},
		{"agents/llm", "agents", false},
	} {
		if got := matches(c.pattern, c.p); got != c.want {
			t.Errorf("matches(%q, %q) = %v, want %v", c.pattern, c.p, got, c.want)
		}
	}
}
