package metrics

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsStayLight: the package links nothing whose initialisation
// runs in every process, metrics on or off (issue 30): not Prometheus'
// client (compiled expressions, default registries, protobuf), not
// runtime/metrics (its table of descriptions). Tests may use Prometheus'
// parser; the code the binary links may not.
func TestImportsStayLight(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "github.com/prometheus/") || path == "runtime/metrics" || strings.HasPrefix(path, "google.golang.org/protobuf") {
				t.Errorf("%s imports %s, whose package initialisation every process would pay for", name, path)
			}
		}
	}
}
