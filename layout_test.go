package jarvisbot_test

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"path"
	"slices"
	"strings"
	"testing"
)

// The layout is the architecture (SPEC "Top-level layout", STYLE.md "Which
// way dependencies point"): data flows channel → dispatcher → agents →
// catalog/skills/llm → store, and imports point the same way, downhill.
// These tests fail when a package imports uphill, when two top-level
// folders import each other or when a channel reaches the store's engines,
// so the rules hold without anyone remembering them.

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
	// The doors (cmd, web, mcp/backend) call the application layer and
	// never each other; the layer knows none of them.
	{"app/...", []string{"cmd/...", "web/...", "mcp/..."}, true,
		"the application layer returns results; the doors render them"},
	{"web/...", []string{"mcp/..."}, true,
		"the dashboard is a door onto the app layer, not onto the MCP surface"},
	{"mcp/...", []string{"web/..."}, true,
		"the MCP surface is a door onto the app layer, not onto the dashboard"},
	// Domain packages take their own options; the app layer maps the
	// config file onto them and is above them all.
	{"agents/...", []string{"internal/config", "app/..."}, true, "the runtime takes its own options"},
	{"catalog/...", []string{"internal/config", "app/..."}, true, "the catalog takes its own options"},
	{"skills/...", []string{"internal/config", "app/..."}, true, "skills take their own options"},
	{"plugins/...", []string{"internal/config", "app/..."}, true, "plugins take their own options"},
	{"desk", []string{"internal/config", "app/..."}, true, "the desk takes its own options"},
	{"scheduler/...", []string{"internal/config", "app/..."}, true, "the scheduler takes its own options"},
	{"channels/...", []string{"internal/config", "app/..."}, true, "a channel takes its own options"},
	{"...", []string{"cmd/...", "internal/fakes/..."}, true,
		"nothing but tests reaches the command line or the protocol fakes"},
}

type listed struct {
	ImportPath string
	Imports    []string
	Deps       []string
	DepOnly    bool // listed by -deps only: not matched by the pattern
}

const module = "github.com/jarvisbot/jarvisbot"

// rel is p relative to the module, "." for its root, or false for a
// package outside it.
func rel(p string) (string, bool) {
	if p == module {
		return ".", true
	}
	return strings.CutPrefix(p, module+"/")
}

// goList lists the packages the go tool finds for args, with their direct
// imports (tests' imports left out) and every package they depend on.
func goList(t *testing.T, args ...string) []listed {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the go tool is needed to list imports: %v", err)
	}
	out, err := exec.Command("go", append([]string{"list", "-json=ImportPath,Imports,Deps,DepOnly"}, args...)...).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
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
	n := 0
	for _, p := range pkgs {
		if !p.DepOnly {
			n++
		}
	}
	if n < 3 {
		t.Fatalf("go list %s found %d packages; the test is not looking at the module", strings.Join(args, " "), n)
	}
	return pkgs
}

func TestImportsPointDownhill(t *testing.T) {
	pkgs := goList(t, "./...")
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

// TestTopFoldersImportOneWay: no two top-level folders import each other,
// each folder taken as a unit (internal/ too), so that the folders stand
// in one order: plugins → skills → catalog → store, with internal/'s leaves
// under every one. The root package (the error codes every layer uses) and
// cmd (the top, which wires everything) stand outside the order, and tests'
// imports do not count.
func TestTopFoldersImportOneWay(t *testing.T) {
	for _, msg := range twoWay(goList(t, "./...")) {
		t.Error(msg)
	}
}

// engines are the store's engines: the SQL store and the drivers and queue
// it runs on.
var engines = []string{module + "/store/sqlstore/...", "github.com/riverqueue/...", "github.com/jackc/...", "modernc.org/sqlite/..."}

// TestChannelsReachNoStoreEngine: no package under channels/ reaches the
// store's engines, not even through another package. An adapter carries
// messages; which database keeps them and how replicas share the work is
// the desk's and the store's business (desk/ is not a channel).
func TestChannelsReachNoStoreEngine(t *testing.T) {
	for _, msg := range reaching(goList(t, "-deps", "./channels/..."), "channels/...", engines,
		"a channel adapter carries messages; the store's engines are the desk's and the store's business") {
		t.Error(msg)
	}
}

// folder is the top-level folder of a module-relative package, or "" for
// the root package and cmd, which stand outside the order.
func folder(p string) string {
	top, _, _ := strings.Cut(p, "/")
	if top == "." || top == "cmd" {
		return ""
	}
	return top
}

// twoWay says, for each pair of top-level folders that import each other,
// which packages import which.
func twoWay(pkgs []listed) []string {
	via := map[[2]string][]string{}
	for _, p := range pkgs {
		from, ok := rel(p.ImportPath)
		a := folder(from)
		if p.DepOnly || !ok || a == "" {
			continue
		}
		for _, imp := range p.Imports {
			to, ok := rel(imp)
			if b := folder(to); ok && b != "" && b != a {
				via[[2]string{a, b}] = append(via[[2]string{a, b}], from+" imports "+to)
			}
		}
	}
	pairs := slices.SortedFunc(maps.Keys(via), func(x, y [2]string) int {
		return cmp.Or(strings.Compare(x[0], y[0]), strings.Compare(x[1], y[1]))
	})
	var out []string
	for _, pair := range pairs {
		back, ok := via[[2]string{pair[1], pair[0]}]
		if !ok || pair[0] > pair[1] {
			continue
		}
		out = append(out, fmt.Sprintf("%s/ and %s/ import each other (%s; %s): move what the lower one takes from the upper one down, so that imports run one way",
			pair[0], pair[1], strings.Join(via[pair], ", "), strings.Join(back, ", ")))
	}
	return out
}

// reaching says, for each package of the module matching from and each
// pattern of not it reaches through its imports, the shortest chain of
// imports that gets there. pkgs must hold every package the chains pass
// through (go list -deps).
func reaching(pkgs []listed, from string, not []string, why string) []string {
	imports := make(map[string][]string, len(pkgs))
	for _, p := range pkgs {
		imports[p.ImportPath] = p.Imports
	}
	name := func(p string) string {
		if r, ok := rel(p); ok {
			return r
		}
		return p
	}
	var out []string
	for _, p := range pkgs {
		if r, ok := rel(p.ImportPath); p.DepOnly || !ok || !matches(from, r) {
			continue
		}
		// Breadth first, so that each chain found is a shortest one.
		parent := map[string]string{p.ImportPath: ""}
		queue := []string{p.ImportPath}
		found := map[string]bool{}
		for len(queue) > 0 {
			cur := queue[0]
			queue = queue[1:]
			for _, imp := range imports[cur] {
				if _, seen := parent[imp]; seen {
					continue
				}
				parent[imp] = cur
				i := slices.IndexFunc(not, func(n string) bool { return matches(n, imp) })
				if i < 0 {
					queue = append(queue, imp)
					continue
				}
				if found[not[i]] {
					continue
				}
				found[not[i]] = true
				var chain []string
				for q := imp; q != ""; q = parent[q] {
					chain = append(chain, name(q))
				}
				slices.Reverse(chain)
				out = append(out, fmt.Sprintf("%s reaches %s through %s: %s", chain[0], name(imp), strings.Join(chain, " → "), why))
			}
		}
	}
	return out
}

func TestTwoWayNamesThePairAndThePackages(t *testing.T) {
	m := func(p string) string { return module + "/" + p }
	pkgs := []listed{
		{ImportPath: module},
		{ImportPath: m("catalog"), Imports: []string{module, "strings"}},
		{ImportPath: m("catalog/mcphost"), Imports: []string{m("catalog"), m("plugins")}},
		{ImportPath: m("plugins"), Imports: []string{m("catalog"), m("internal/words")}},
		{ImportPath: m("internal/words")},
		{ImportPath: m("cmd/jarvisbot"), Imports: []string{m("catalog"), m("plugins")}},
		{ImportPath: m("store"), Imports: []string{m("cmd/jarvisbot")}}, // cmd stands outside the order
		{ImportPath: m("skills"), Imports: []string{m("plugins")}, DepOnly: true},
	}
	got := twoWay(pkgs)
	want := "catalog/ and plugins/ import each other (catalog/mcphost imports plugins; plugins imports catalog)"
	if len(got) != 1 || !strings.HasPrefix(got[0], want) {
		t.Errorf("twoWay = %q, want one message starting %q", got, want)
	}
}

func TestReachingNamesTheChain(t *testing.T) {
	m := func(p string) string { return module + "/" + p }
	pkgs := []listed{
		{ImportPath: m("channels/telegram"), Imports: []string{m("channels"), m("desk")}},
		{ImportPath: m("channels"), Imports: []string{"context"}},
		{ImportPath: m("desk"), Imports: []string{m("store"), m("store/sqlstore/replicas")}, DepOnly: true},
		{ImportPath: m("store/sqlstore/replicas"), Imports: []string{"github.com/jackc/pgx/v5"}, DepOnly: true},
		{ImportPath: m("channels/console"), Imports: []string{m("channels"), "modernc.org/sqlite/lib"}},
	}
	got := reaching(pkgs, "channels/...", engines, "why")
	want := []string{
		"channels/telegram reaches store/sqlstore/replicas through channels/telegram → desk → store/sqlstore/replicas: why",
		"channels/console reaches modernc.org/sqlite/lib through channels/console → modernc.org/sqlite/lib: why",
	}
	if !slices.Equal(got, want) {
		t.Errorf("reaching =\n%q\nwant\n%q", got, want)
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
