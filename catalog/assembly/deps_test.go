package assembly_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsStayDownhill: the packages that assemble the catalog, explain
// routes, hold the plugin collection and decide skill precedence know no
// chat platform and no model (STYLE "Which way dependencies point"): none
// of them imports channels/ or agents/ (the provider adapters live there).
func TestImportsStayDownhill(t *testing.T) {
	if testing.Short() {
		t.Skip("lists dependencies with the go command")
	}
	const mod = "github.com/jarvisbot/jarvisbot/"
	pkgs := []string{"catalog/assembly", "catalog/route", "plugins/collection", "skills"}
	for _, p := range pkgs {
		out, err := exec.Command("go", "list", "-deps", "./../../"+p).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", p, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, up := range []string{"channels", "agents"} {
				if dep == mod+up || strings.HasPrefix(dep, mod+up+"/") {
					t.Errorf("%s imports %s", p, dep)
				}
			}
		}
	}
}
