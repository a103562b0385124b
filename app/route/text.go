package route

import (
	"fmt"
	"io"
	"strings"
)

// WriteText writes an explained turn for people: what `route` prints
// without --json.
func WriteText(w io.Writer, ex Explanation) {
	fmt.Fprintf(w, "Message: %q\n", ex.Message)
	fmt.Fprintf(w, "Agent:   %s", ex.Agent)
	if len(ex.Focus) > 0 {
		fmt.Fprintf(w, " (focus: %s)", strings.Join(ex.Focus, ", "))
	}
	fmt.Fprintln(w)
	if len(ex.MCP) == 0 {
		fmt.Fprintln(w, "\nMCP servers: none connected (load a snapshot with --catalog)")
	} else {
		fmt.Fprintln(w, "\nMCP servers:")
		for _, m := range ex.MCP {
			if m.Offered {
				fmt.Fprintf(w, "  + %s: offered, %d tools, because %s\n", m.Server, m.Tools, m.Because)
			} else {
				fmt.Fprintf(w, "  - %s: not offered: %s\n", m.Server, m.Because)
			}
		}
	}
	if len(ex.OnRequest) > 0 {
		fmt.Fprintf(w, "  On request (the model can ask for their tools): %s\n", strings.Join(ex.OnRequest, ", "))
	}
	fmt.Fprintf(w, "\nTools the model gets, in order (%d, ~%d schema tokens):\n", len(ex.Tools), ex.SchemaTokens)
	for i, cp := range ex.Tools {
		if i == ex.Prefix && ex.Prefix > 0 && ex.Prefix < len(ex.Tools) {
			fmt.Fprintln(w, "  -- per-turn MCP tools (after the cached prefix) --")
		}
		fmt.Fprintf(w, "  %3d. %s [%s]\n", i+1, cp.ID, TierText(cp))
	}
	writeWithheld(w, ex.Withheld)
	if len(ex.Skills) == 0 {
		fmt.Fprintln(w, "\nSkills: none matched")
		return
	}
	fmt.Fprintln(w, "\nSkills (best first):")
	for _, sk := range ex.Skills {
		fmt.Fprintf(w, "  %s  score %.2f  entry %s", sk.ID, sk.Score, sk.Entry)
		if sk.Tie != nil && sk.Plugin != nil {
			fmt.Fprintf(w, "  (%s)", sk.Tie.String(*sk.Plugin))
		}
		if len(sk.Learned) > 0 {
			fmt.Fprintf(w, "  (%s)", LearnedText(sk.Learned))
		}
		fmt.Fprintln(w)
	}
}

// writeWithheld lists what the turn withholds, grouped by why.
func writeWithheld(w io.Writer, groups []Withheld) {
	if len(groups) == 0 {
		return
	}
	fmt.Fprintln(w, "\nWithheld:")
	for _, g := range groups {
		more := ""
		if g.More > 0 {
			more = fmt.Sprintf(" and %d more", g.More)
		}
		fmt.Fprintf(w, "  %s: %s%s\n", g.Reason, strings.Join(g.IDs, ", "), more)
	}
}

// LearnedText says which learned words of a skill the message says:
// "learned word: holzern", "learned words: a, b".
func LearnedText(words []string) string {
	if len(words) == 1 {
		return "learned word: " + words[0]
	}
	return "learned words: " + strings.Join(words, ", ")
}
