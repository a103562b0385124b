package app

import (
	"bytes"
	"strings"
)

// warnings collects what the packages below write as warnings, one line
// each ("jarvisbot: skipping skill x: …"), so that a use case returns
// them as values and the door shows them.
type warnings struct{ b bytes.Buffer }

func (w *warnings) Write(p []byte) (int, error) { return w.b.Write(p) }

// lines are the warnings written, without their line ends.
func (w *warnings) lines() []string {
	s := strings.TrimSuffix(w.b.String(), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
