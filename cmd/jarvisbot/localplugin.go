package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/plugins/local"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// `plugins install DIR` (P1, S6, X1, X2): plugins/local stages, checks and
// installs the folder; this shows it in full (its servers with their
// commands and addresses, its skills as written, control characters
// visible) and asks the owner.

// localInstall is one `plugins install DIR`.
type localInstall struct {
	a       *cli
	cfg     config.Config
	db      *sqlstore.DB
	yes     bool // install without asking, after showing everything
	trusted bool // honour every field of the plugin's skills
}

// install stages, shows and, on yes, installs the plugin folder src. It
// returns the installed plugin, or nil when the owner said no.
func (li localInstall) install(ctx context.Context, src string, all collection.Collection) (*collection.Plugin, error) {
	in := local.Installer{
		Dir: collection.LocalDir(li.cfg.DataDir), Store: li.db, Trusted: li.trusted,
		Shipped: func(name string) (*plugins.Plugin, bool) {
			sp, ok := all[name]
			return sp.Plugin, ok && sp.Local == ""
		},
		Manual:  collection.ReadManual,
		Consent: li.consent,
	}
	done, err := in.Install(ctx, src)
	if err != nil || done == nil {
		return nil, err
	}
	return &collection.Plugin{Plugin: done.Plugin, Manual: done.Manual, Local: done.Dir}, nil
}

// consent shows the staged plugin and, unless --yes, asks.
func (li localInstall) consent(st local.Staged) (bool, error) {
	li.show(st.Src, st.Plugin, st.Skills)
	if li.yes {
		return true, nil
	}
	return confirm(li.a, fmt.Sprintf("Install %s into %s? [y/N] ", st.Plugin.Manifest.Name, st.Dest), "jarvisbot plugins install "+st.Src+" --yes")
}

// show is the consent view of a plugin folder.
func (li localInstall) show(src string, p *plugins.Plugin, list []local.Skill) {
	w := li.a.stdout
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
	case li.trusted && len(dropped) > 0:
		fmt.Fprintln(w, "You trust this plugin (--trusted): these fields of its skills are honoured, though they grant behaviour:")
		showDropped(w, "", dropped)
	case li.trusted:
		fmt.Fprintln(w, "You trust this plugin (--trusted): every field of its skills is honoured.")
	case len(dropped) > 0:
		fmt.Fprintln(w, "jarvisbot will ignore these fields of its skills (they would grant behaviour); if you trust this plugin, install it with --trusted to keep them:")
		showDropped(w, "", dropped)
	}
	for _, s := range list {
		if s.Manual && !li.trusted {
			fmt.Fprintf(w, "Its manual will %s.\n", skills.EntryText(s.Skill))
		}
	}
}

// showServer writes one MCP server of a plugin with everything it will
// run or reach.
func showServer(w io.Writer, id string, srv plugins.MCPServer) {
	fmt.Fprintf(w, "  %s (%s)\n", visible.Text(id), srv.Type)
	if srv.Command != "" {
		line := []string{showArg(srv.Command)}
		for _, a := range srv.Args {
			line = append(line, showArg(a))
		}
		fmt.Fprintf(w, "    runs:    %s\n", strings.Join(line, " "))
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

// showArg writes one argument of a command line so that where it starts
// and ends is plain: as it is when it holds only ordinary characters, else
// in double quotes with backslashes, quotes and controls escaped.
func showArg(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%_+=:,./-${}", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	q := strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`)
	return `"` + visible.Text(q) + `"`
}
