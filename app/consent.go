package app

import (
	"fmt"
	"strings"

	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/skills"
)

// The consent views (X2): before a skill or a local plugin is installed,
// the owner reads everything it brings, exactly as the file says it, and
// answers. Every door shows text from outside through these functions, so
// that none reaches a terminal or a page with its control characters live.

const rule = "----------------------------------------"

// InFull is text from outside between two rules, every control and
// invisible character written as an escape, with a warning when there
// were any.
func InFull(text string) string {
	shown := visible.Text(text)
	if !strings.HasSuffix(shown, "\n") {
		shown += "\n"
	}
	out := fmt.Sprintf("%s\n%s%s\n", rule, shown, rule)
	if n := visible.Count(text); n > 0 {
		out += fmt.Sprintf("Careful: the text holds %d control or invisible character(s), shown above as \\x.., \\u.... escapes; in a terminal they could hide or rewrite what you read.\n", n)
	}
	return out
}

// DroppedList lists the fields that will be ignored, each with why, one
// line each; prefix names the file they are in when there are several.
func DroppedList(prefix string, dropped []skills.Dropped) string {
	var b strings.Builder
	for _, d := range dropped {
		fmt.Fprintf(&b, "  - %s%s: %s\n", visible.Text(prefix), visible.Text(d.Field), d.Reason)
	}
	return b.String()
}
