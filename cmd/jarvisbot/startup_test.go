package main

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestPackageInitDoesNoWork: initialising jarvisbot's own packages does
// next to nothing (issue 14: start-up touches only what it uses). A
// regular expression, a table or a client wanted by one command is built
// when first needed (sync.OnceValue), not at every start of every
// command. It reads the runtime's own init trace of this test binary,
// which links the packages jarvisbot is built from.
func TestPackageInitDoesNoWork(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("running the test binary with GODEBUG=inittrace=1: %v\n%s", err, out)
	}
	// init github.com/jarvisbot/jarvisbot/catalog @0.5 ms, 0.01 ms clock, 984 bytes, 4 allocs
	line := regexp.MustCompile(`^init (github\.com/jarvisbot/jarvisbot\S*) @.* ([0-9]+) bytes, ([0-9]+) allocs`)
	const most = 2048 // bytes: a few small values; a compiled expression is tens of KB
	seen := 0
	for l := range strings.Lines(string(out)) {
		m := line.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil || strings.Contains(m[1], "/internal/fakes/") || m[1] == "github.com/jarvisbot/jarvisbot/cmd/jarvisbot" {
			continue // test doubles, and this package with its tests' own values
		}
		seen++
		if n, _ := strconv.Atoi(m[2]); n > most {
			t.Errorf("initialising %s allocates %d bytes in %s allocations at every start: build it when first used", m[1], n, m[3])
		}
	}
	if seen == 0 {
		t.Fatalf("no init trace of jarvisbot's packages in the output:\n%s", out)
	}
}
