package jarvisbot_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// specID is a SPEC requirement id (C7, S5, CH1, X3, ST2, …): the families
// of the SPEC's sections, a number after. They belong in comments, test
// names and commit messages, never in what a user reads.
var specID = regexp.MustCompile(`\b(?:CH|SC|ST|[CSMPAWVX])[0-9]{1,2}\b`)

// TestNoSpecIDsInUserTextX3: no string literal in shipped Go code (CLI
// help, chat replies, errors, log lines, page text built in Go) and no
// text in a dashboard template carries a SPEC id such as "(C7)"; comments
// keep theirs. Test files, generated templates (their .templ source is
// read) and test fakes are not shipped text.
func TestNoSpecIDsInUserTextX3(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "fakes") {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(path, ".templ"):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(b), "\n") {
				text := line
				if c := strings.Index(text, "//"); c >= 0 && strings.TrimSpace(text[:c]) == "" {
					continue // a templ comment line
				}
				if id := specID.FindString(text); id != "" {
					t.Errorf("%s:%d: the page shows the SPEC id %s: %s", path, i+1, id, strings.TrimSpace(line))
				}
			}
		case strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") && !strings.HasSuffix(path, "_templ.go"):
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution) // comments are not parsed
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					s = lit.Value
				}
				for _, line := range strings.Split(s, "\n") {
					if id := specID.FindString(line); id != "" {
						t.Errorf("%s: a user may read the SPEC id %s in %q", fset.Position(lit.Pos()), id, line)
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
