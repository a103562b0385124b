package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/store"
)

const pluginsUsage = "plugins list [--json] | show NAME | install NAME [--no-signin] [--all-google] | install DIR [--yes] [--trusted] [--no-signin] | signin NAME | call NAME TOOL [JSON] | prefer [--clear] NAME | remove NAME | validate DIR"

// pluginsFlags are the flags of `jarvisbot plugins`.
type pluginsFlags struct {
	asJSON, noSignin, yes, trusted, clear, allGoogle *bool
}

// cmdPlugins: the plugin store (P2) and the Agent Plugins checker (P1).
func cmdPlugins(ctx context.Context, a *cli, args []string) error {
	fs := newFlagSet(a, "plugins", pluginsUsage)
	f := pluginsFlags{
		asJSON:   fs.Bool("json", false, "list: one JSON array"),
		noSignin: fs.Bool("no-signin", false, "install: record the plugin and its manual now, sign in later with plugins signin NAME"),
		yes:      fs.Bool("yes", false, "install DIR: do not ask; install after showing everything the plugin brings"),
		trusted:  fs.Bool("trusted", false, "install DIR: you trust the plugin: honour every field of its skills (trigger words, tier, schedule, voice)"),
		clear:    fs.Bool("clear", false, "prefer: take the preference back"),
		allGoogle: fs.Bool("all-google", false, "install a Google plugin: install Google Calendar, Gmail and Google Drive with one Google sign-in "+
			"that grants all three plugins' scopes"),
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fs.Usage()
		return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot %s", pluginsUsage)
	}
	need := func(n int, what string) error {
		if len(pos) != n+1 {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot plugins %s %s", pos[0], what)
		}
		return nil
	}
	switch pos[0] {
	case "validate":
		if err := need(1, "DIR"); err != nil {
			return err
		}
		return validatePlugin(a.stdout, pos[1])
	case "list":
		if err := need(0, "[--json]"); err != nil {
			return err
		}
		return a.listPlugins(ctx, *f.asJSON)
	case "show", "install", "remove", "signin", "prefer":
		if err := need(1, "NAME"); err != nil {
			return err
		}
		return a.pluginNamed(ctx, pos[0], pos[1], f)
	case "call":
		if len(pos) < 3 || len(pos) > 4 {
			return jarvisbot.Errorf(jarvisbot.EINVALID, `usage: jarvisbot plugins call NAME TOOL ['{"arg": "value"}']`)
		}
		args := "{}"
		if len(pos) == 4 {
			args = pos[3]
		}
		return a.pluginCall(ctx, pos[1], pos[2], args)
	}
	return jarvisbot.Errorf(jarvisbot.EINVALID, "unknown plugins subcommand %q: use %s", pos[0], pluginsUsage)
}

// pluginNamed runs a plugins subcommand on one plugin of the store, or
// installs a plugin folder.
func (a *cli) pluginNamed(ctx context.Context, sub, ref string, f pluginsFlags) error {
	in, err := a.OpenInstallation(ctx)
	if err != nil {
		return err
	}
	defer in.Close()
	if sub == "install" {
		_, err := in.InstallPlugin(ctx, ref, app.InstallOptions{
			NoSignIn: *f.noSignin, AllGoogle: *f.allGoogle, Yes: *f.yes, Trusted: *f.trusted,
			Consent: a.pluginConsent(*f.yes, *f.trusted), Ask: a.askSetting(),
		}, a.printPluginEvent)
		return err
	}
	if *f.yes || *f.trusted {
		return app.ErrFolderFlags
	}
	if *f.allGoogle {
		if _, err := in.Plugin(ctx, ref); err != nil {
			return err
		}
		return app.ErrAllGoogle
	}
	switch sub {
	case "signin":
		return in.SignInPlugin(ctx, ref, app.SignInOptions{Ask: a.askSetting()}, a.printPluginEvent)
	case "remove":
		res, err := in.RemovePlugin(ctx, ref)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, res)
		return nil
	}
	if sub == "prefer" {
		p, err := in.PreferPlugin(ctx, ref, *f.clear)
		return printPreference(a.stdout, p, err)
	}
	facts, err := in.Plugin(ctx, ref)
	if err != nil {
		return err
	}
	showPlugin(a.stdout, facts)
	return nil
}

// printPluginEvent prints a step of an install or a sign-in; the sign-in
// link is printed to be copied, with what happens while it waits.
func (a *cli) printPluginEvent(e app.PluginEvent) {
	if e.Kind == app.PluginSignInLink {
		fmt.Fprintf(a.stdout, "Sign in to %s in your browser:\n\n  %s\n\nWaiting for the sign-in (Ctrl-C to stop)...\n", e.Who, e.URL)
		return
	}
	fmt.Fprintln(a.stdout, e)
}

// askSetting asks the owner on stdin for a value a plugin needs; nil when
// there is no stdin, and nobody can be asked.
func (a *cli) askSetting() func(app.PluginSetting) (string, error) {
	if a.stdin == nil {
		return nil
	}
	in := bufio.NewReader(a.stdin)
	return func(s app.PluginSetting) (string, error) {
		fmt.Fprintf(a.stdout, "%s needs %s (%s); type it and press Enter:\n", s.Plugin, s.Name, s.Hint)
		line, err := in.ReadString('\n')
		line = strings.TrimSpace(line)
		if line == "" && err != nil && !errors.Is(err, io.EOF) {
			return "", jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "reading %s from stdin: %w", s.Name, err)
		}
		return line, nil
	}
}

// printPreference says what a preference changes.
func printPreference(w io.Writer, p app.Preference, err error) error {
	if err != nil {
		return err
	}
	if p.Cleared {
		fmt.Fprintf(w, "%s is no longer preferred: a tie with another of its kind goes to the one used last.\n", p.Name)
		return nil
	}
	fmt.Fprintf(w, "%s is now preferred: when it and another %s of its kind match a request equally, it wins (see jarvisbot route).\n", p.Name, map[string]string{"plugin": "plugin", "mcp": "MCP server"}[p.Kind])
	return nil
}

// pluginCall runs `plugins call NAME TOOL [JSON]`.
func (a *cli) pluginCall(ctx context.Context, name, tool, args string) error {
	in, err := a.OpenInstallation(ctx)
	if err != nil {
		return err
	}
	defer in.Close()
	res, err := in.CallPlugin(ctx, name, tool, args)
	for _, w := range res.Warnings {
		fmt.Fprintf(a.Stderr, "jarvisbot: %s\n", w)
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(a.stdout, res.Text)
	return err
}

func (a *cli) listPlugins(ctx context.Context, asJSON bool) error {
	in, err := a.OpenInstallation(ctx)
	if err != nil {
		return err
	}
	defer in.Close()
	list, err := in.Plugins(ctx)
	if err != nil {
		return err
	}
	rows := list.Rows()
	if asJSON {
		b, err := json.Marshal(rows)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(a.stdout, "%s\n", b)
		return err
	}
	if err := printPluginGroups(a.stdout, rows); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%d plugins in the store, %d installed. Install one with: jarvisbot plugins install NAME\n", len(rows), list.Installed)
	return nil
}

// printPluginGroups writes the design note's Plugins tab: what needs
// attention first.
func printPluginGroups(w io.Writer, rows []plugins.Listed) error {
	groups := []struct {
		title string
		match func(string) bool
	}{
		{"Needs attention", func(s string) bool { return s == string(store.PluginNeedsAttention) }},
		{"Installed", func(s string) bool { return s == string(store.PluginInstalled) || s == string(store.PluginConnected) }},
		{"In the store", func(s string) bool { return s == plugins.NotInstalled }},
	}
	for _, g := range groups {
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		n := 0
		for _, r := range rows {
			if !g.match(r.State) {
				continue
			}
			if n == 0 {
				fmt.Fprintf(w, "%s:\n", g.title)
			}
			n++
			kind := "built in"
			if r.Kind == "mcp" {
				kind = "MCP server"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", r.Name, visible.Text(r.DisplayName), kind, r.State)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if n > 0 {
			fmt.Fprintln(w)
		}
	}
	return nil
}

// showPlugin writes a plugin of the store for `plugins show`.
func showPlugin(w io.Writer, f app.PluginFacts) {
	fmt.Fprintf(w, "%s (%s) %s\n%s\n\n", f.Display, f.Name, f.Version, f.Description)
	state := f.State
	if !f.Since.IsZero() {
		state += " since " + f.Since.Local().Format("2006-01-02 15:04")
	}
	fmt.Fprintf(w, "State:    %s\n", state)
	if f.From != "" {
		fmt.Fprintf(w, "From:     %s\n", f.From)
	}
	fmt.Fprintf(w, "Sign-in:  %s\n", f.SignIn)
	switch {
	case f.Builtin:
		fmt.Fprintln(w, "Tools:    built into jarvisbot")
		for _, cp := range f.Tools {
			fmt.Fprintf(w, "          %s [%s]\n", cp.ID, cp.Tier)
		}
	case f.Channel:
		fmt.Fprintln(w, "Tools:    none: it is one of jarvisbot's chat channels")
	}
	for _, s := range f.Servers {
		fmt.Fprintf(w, "MCP:      %s %s %s\n", s.ID, s.Type, s.Target)
	}
	if f.Homepage != "" {
		fmt.Fprintf(w, "Homepage: %s\n", f.Homepage)
	}
	tier := f.Tier
	if tier == "" {
		tier = "monitor (the default)"
	}
	fmt.Fprintf(w, "Manual:   skill:%s, tier %s\n", f.Manual, tier)
	fmt.Fprintf(w, "Words:    %s\n", strings.Join(f.Words, ", "))
	fmt.Fprintf(w, "German:   %s\n", strings.Join(f.WordsDE, ", "))
	fmt.Fprintf(w, "\n%s", f.Body)
}

// validatePlugin checks a plugin folder and names every problem.
func validatePlugin(w io.Writer, dir string) error {
	problems, err := app.ValidatePlugin(dir)
	for _, p := range problems {
		kind := "error"
		if p.Warning {
			kind = "warning"
		}
		fmt.Fprintf(w, "%s: %s\n", kind, p)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s is a valid plugin", dir)
	if len(problems) > 0 {
		fmt.Fprintf(w, " (%d warning(s))", len(problems))
	}
	fmt.Fprintln(w)
	return nil
}
