package main

import (
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// initCost is what package initialisation allocated for one module.
type initCost struct {
	bytes, allocs int64
}

// initLine is a line GODEBUG=inittrace=1 prints for each package, e.g.
// "init github.com/a/b @1.2 ms, 0.010 ms clock, 4096 bytes, 12 allocs".
var initLine = regexp.MustCompile(`^init (\S+) @[0-9.]+ ms, [0-9.]+ ms clock, (\d+) bytes, (\d+) allocs$`)

// initCosts sums the inittrace lines of out by module; other lines (the
// command's own output) are skipped.
func initCosts(out string, mods modules) (map[string]initCost, error) {
	costs := map[string]initCost{}
	for line := range strings.Lines(out) {
		m := initLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		bytes, err := strconv.ParseInt(m[2], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("inittrace line %q: %w", line, err)
		}
		allocs, err := strconv.ParseInt(m[3], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("inittrace line %q: %w", line, err)
		}
		mod := mods.ofPackage(m[1])
		costs[mod] = initCost{costs[mod].bytes + bytes, costs[mod].allocs + allocs}
	}
	if len(costs) == 0 {
		return nil, fmt.Errorf("no inittrace lines in the output of GODEBUG=inittrace=1:\n%s", out)
	}
	return costs, nil
}

// traceInits runs the binary once with GODEBUG=inittrace=1. Every
// package's init runs before main, so which command it runs does not
// matter: help, which needs no configuration and ends at once.
func traceInits(binary string, env []string, mods modules) (map[string]initCost, error) {
	cmd := exec.Command(binary, "help")
	cmd.Env = append(env, "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("GODEBUG=inittrace=1 %s help: %w\n%s", binary, err, out)
	}
	return initCosts(string(out), mods)
}
