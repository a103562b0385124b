package main

import (
	"bytes"
	"os"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/words"
)

// TestPackedUpToDate: the committed thesaurus.packed, which the binary
// embeds, is what this command makes of the committed thesaurus.txt.
func TestPackedUpToDate(t *testing.T) {
	text, err := os.ReadFile("../../thesaurus.txt")
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("../../thesaurus.packed")
	if err != nil {
		t.Fatal(err)
	}
	want, err := words.PackThesaurus(string(text))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, want) {
		t.Errorf("internal/words/thesaurus.packed (%d bytes) does not match thesaurus.txt (packed: %d bytes): run `go run ./internal/words/gen/packed` from the module root", len(committed), len(want))
	}
}
