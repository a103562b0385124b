package app

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/plugins/local"
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

// StagedView is the consent view of a plugin folder staged for
// install (X2): what it is, every server with what it runs or reaches,
// its skills in full and the fields that will be ignored unless trusted.
func StagedView(st local.Staged, trusted bool) string {
	var b strings.Builder
	writeStaged(&b, st.Src, st.Plugin, st.Skills, trusted)
	return b.String()
}

func writeStaged(w *strings.Builder, src string, p *plugins.Plugin, list []local.Skill, trusted bool) {
	fmt.Fprintf(w, "The plugin %s (%s) %s from %s:\n", visible.Text(p.DisplayName()), p.Manifest.Name, visible.Text(p.Manifest.Version), visible.Text(src))
	if p.Manifest.Description != "" {
		fmt.Fprintf(w, "  %s\n", visible.Text(p.Manifest.Description))
	}
	fmt.Fprintf(w, "Sign-in: %s\n", p.Ext.SignIn.Text())
	if p.MCP == nil || len(p.MCP.Servers) == 0 {
		fmt.Fprintln(w, "It brings no MCP server.")
	} else {
		fmt.Fprintf(w, "It brings %d MCP server(s), which jarvisbot starts or connects to when the service runs:\n", len(p.MCP.Servers))
		for _, id := range slices.Sorted(maps.Keys(p.MCP.Servers)) {
			writeServer(w, id, p.MCP.Servers[id])
		}
	}
	if card := append(slices.Clone(p.Ext.Card), p.Ext.CardDE...); len(card) > 0 {
		fmt.Fprintf(w, "Its usage card (words that offer its servers' tools): %s\n", visible.Text(strings.Join(card, ", ")))
	}
	if len(list) == 0 {
		fmt.Fprintln(w, "It brings no skills.")
	}
	var dropped []skills.Dropped
	for _, s := range list {
		what := ""
		if s.Manual {
			what = " (its manual)"
		}
		fmt.Fprintf(w, "\n%s%s, in full:\n", s.Rel, what)
		w.WriteString(InFull(s.Original))
		for _, d := range s.Skill.Dropped {
			dropped = append(dropped, skills.Dropped{Field: s.Rel + ": " + d.Field, Reason: d.Reason})
		}
	}
	switch {
	case trusted && len(dropped) > 0:
		fmt.Fprintln(w, "You trust this plugin (--trusted): these fields of its skills are honoured, though they grant behaviour:")
		w.WriteString(DroppedList("", dropped))
	case trusted:
		fmt.Fprintln(w, "You trust this plugin (--trusted): every field of its skills is honoured.")
	case len(dropped) > 0:
		fmt.Fprintln(w, "jarvisbot will ignore these fields of its skills (they would grant behaviour); if you trust this plugin, install it with --trusted to keep them:")
		w.WriteString(DroppedList("", dropped))
	}
	for _, s := range list {
		if s.Manual && !trusted {
			fmt.Fprintf(w, "Its manual will %s.\n", skills.EntryText(s.Skill))
		}
	}
}

// writeServer writes one MCP server of a plugin with everything it will
// run or reach.
func writeServer(w *strings.Builder, id string, srv plugins.MCPServer) {
	fmt.Fprintf(w, "  %s (%s)\n", visible.Text(id), srv.Type)
	if srv.Command != "" {
		fmt.Fprintf(w, "    runs:    %s\n", CommandLine(srv))
	}
	for _, k := range slices.Sorted(maps.Keys(srv.Env)) {
		fmt.Fprintf(w, "    env:     %s=%s\n", visible.Text(k), visible.Text(srv.Env[k]))
	}
	if srv.Cwd != "" {
		fmt.Fprintf(w, "    in:      %s\n", visible.Text(srv.Cwd))
	}
	if srv.URL != "" {
		fmt.Fprintf(w, "    address: %s\n", visible.Text(srv.URL))
	}
	for _, k := range slices.Sorted(maps.Keys(srv.Headers)) {
		fmt.Fprintf(w, "    header:  %s: %s\n", visible.Text(k), visible.Text(srv.Headers[k]))
	}
}
