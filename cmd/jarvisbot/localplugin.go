package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/plugins/local"
	"github.com/jarvisbot/jarvisbot/skills"
)

// `plugins install DIR` (P1, S6, X1, X2): app.Installation.InstallPlugin
// stages, checks and installs the folder; this shows it in full (its
// servers with their commands and addresses, its skills as written,
// control characters visible) and asks the owner.

// pluginConsent shows a staged plugin folder and, unless yes, asks
// whether to install it.
func (a *cli) pluginConsent(yes, trusted bool) func(local.Staged) (bool, error) {
	return func(st local.Staged) (bool, error) {
		showStaged(a.stdout, st.Src, st.Plugin, st.Skills, trusted)
		if yes {
			return true, nil
		}
		return confirm(a, fmt.Sprintf("Install %s into %s? [y/N] ", st.Plugin.Manifest.Name, st.Dest), "jarvisbot plugins install "+st.Src+" --yes")
	}
}

// showStaged is the consent view of a plugin folder.
func showStaged(w io.Writer, src string, p *plugins.Plugin, list []local.Skill, trusted bool) {
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
			showServer(w, id, p.MCP.Servers[id])
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
		showInFull(w, s.Original)
		for _, d := range s.Skill.Dropped {
			dropped = append(dropped, skills.Dropped{Field: s.Rel + ": " + d.Field, Reason: d.Reason})
		}
	}
	switch {
	case trusted && len(dropped) > 0:
		fmt.Fprintln(w, "You trust this plugin (--trusted): these fields of its skills are honoured, though they grant behaviour:")
		showDropped(w, "", dropped)
	case trusted:
		fmt.Fprintln(w, "You trust this plugin (--trusted): every field of its skills is honoured.")
	case len(dropped) > 0:
		fmt.Fprintln(w, "jarvisbot will ignore these fields of its skills (they would grant behaviour); if you trust this plugin, install it with --trusted to keep them:")
		showDropped(w, "", dropped)
	}
	for _, s := range list {
		if s.Manual && !trusted {
			fmt.Fprintf(w, "Its manual will %s.\n", skills.EntryText(s.Skill))
		}
	}
}

// showServer writes one MCP server of a plugin with everything it will
// run or reach.
func showServer(w io.Writer, id string, srv plugins.MCPServer) {
	fmt.Fprintf(w, "  %s (%s)\n", visible.Text(id), srv.Type)
	if srv.Command != "" {
		fmt.Fprintf(w, "    runs:    %s\n", app.CommandLine(srv))
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
