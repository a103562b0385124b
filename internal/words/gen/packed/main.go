// Command packed writes internal/words/thesaurus.packed, the thesaurus as
// the binary embeds it: internal/words/thesaurus.txt with every related
// word replaced by a reference to its own line (see internal/words's
// packed.go), about half the size. Run it from the module root whenever
// thesaurus.txt changes:
//
//	go run ./internal/words/gen/packed
//
// The package's test fails while thesaurus.packed does not match
// thesaurus.txt.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/jarvisbot/jarvisbot/internal/words"
)

func main() {
	in := flag.String("in", "internal/words/thesaurus.txt", "thesaurus table to read")
	out := flag.String("out", "internal/words/thesaurus.packed", "packed table to write")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("packed: ")
	if err := run(*in, *out); err != nil {
		log.Fatal(err)
	}
}

func run(in, out string) error {
	text, err := os.ReadFile(in)
	if err != nil {
		return fmt.Errorf("read the thesaurus (run from the module root, or give -in): %w", err)
	}
	packed, err := words.PackThesaurus(string(text))
	if err != nil {
		return fmt.Errorf("pack %s: %w", in, err)
	}
	if err := os.WriteFile(out, packed, 0o644); err != nil {
		return fmt.Errorf("write the packed table: %w", err)
	}
	return nil
}
