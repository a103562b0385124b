package main

import (
	"os"
	"testing"
)

// TestFamiliesUpToDate: the committed families.txt is what this command
// makes of the committed thesaurus.txt, so the families the router reads
// without scanning the thesaurus are the thesaurus's own.
func TestFamiliesUpToDate(t *testing.T) {
	thesaurus, err := os.ReadFile("../../thesaurus.txt")
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("../../families.txt")
	if err != nil {
		t.Fatal(err)
	}
	fams, err := families(string(thesaurus))
	if err != nil {
		t.Fatal(err)
	}
	if len(fams) == 0 {
		t.Fatal("the thesaurus links no families")
	}
	if want := render(fams); string(committed) != want {
		t.Errorf("internal/words/families.txt does not match thesaurus.txt: run `go run ./internal/words/gen/families` from the module root\ngot:\n%s\nwant:\n%s", committed, want)
	}
}
