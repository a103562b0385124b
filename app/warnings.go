package app

import (
	"bytes"
	"strings"
)

// Warnings are what a use case says without failing, one line each: a
// SKILL.md it could not read and went on without, a local plugin left
// out, tools a server listed that the catalog leaves out and why. A door
// shows each as a warning; none parses them.
type Warnings []string

// warningsOf splits what the packages below wrote on warn into lines.
func warningsOf(warn *bytes.Buffer) Warnings {
	text := strings.TrimRight(warn.String(), "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}
