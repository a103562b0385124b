package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/plugins/builtins"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
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
	cfg, err := a.LoadConfig()
	if err != nil {
		return err
	}
	all, err := collection.Load(cfg.DataDir, a.Stderr)
	if err != nil {
		return err
	}
	if sub == "install" && isFolderRef(ref, all) {
		return a.installFolder(ctx, cfg, ref, all, f)
	}
	if *f.yes || *f.trusted {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "--yes and --trusted are for installing a plugin folder (jarvisbot plugins install DIR); the plugins that ship with jarvisbot need neither")
	}
	sp, ok := all[ref]
	if !ok {
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "the store has no plugin %q (see jarvisbot plugins list)", ref)
	}
	db, err := a.OpenStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	name := sp.Plugin.Manifest.Name
	if *f.allGoogle && (sub != "install" || builtins.ProviderOf(name) != builtins.Google) {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "--all-google is for installing a Google plugin (google-calendar, gmail, google-drive)")
	}
	w := a.cliPluginWork(cfg, db, all)
	switch sub {
	case "install":
		return w.install(ctx, sp, installOptions{noSignin: *f.noSignin, allGoogle: *f.allGoogle})
	case "signin":
		return w.signInAgain(ctx, sp)
	case "remove":
		return w.remove(ctx, sp)
	case "prefer":
		return preferService(ctx, a.stdout, db, "plugin", name, *f.clear)
	}
	facts, err := storePluginFacts(ctx, db, sp)
	if err != nil {
		return err
	}
	showPlugin(a.stdout, facts)
	return nil
}

// pluginWork is one install, sign-in or removal of a plugin of the store,
// run the same way by the command line and by the dashboard: its words go
// to out, its sign-ins run on the manager signin gives (the command's own
// loopback listener, or the running service's), and the values a plugin
// asks for come from ask.
type pluginWork struct {
	a   *cli
	cfg config.Config
	db  *sqlstore.DB
	all collection.Collection
	out io.Writer
	// signin gives the manager that runs a sign-in and takes its return,
	// and done, called once the caller is through with it.
	signin func() (*signin.Manager, func(), error)
	// link, when set, is told each sign-in link instead of printing it
	// with the command line's words (the dashboard shows it as a link).
	link func(url string)
	// ask gives the value of a setting the plugin needs (Home Assistant's
	// host and token): "" when none was given; nil when nobody can be
	// asked, and the owner is told how to set it.
	ask func(name, hint string) (string, error)
}

// cliPluginWork is a pluginWork for a command: it prints to stdout, signs
// in on a listener of its own and asks on stdin.
func (a *cli) cliPluginWork(cfg config.Config, db *sqlstore.DB, all collection.Collection) pluginWork {
	w := pluginWork{a: a, cfg: cfg, db: db, all: all, out: a.stdout,
		signin: func() (*signin.Manager, func(), error) { return a.listeningSignin(cfg) }}
	if a.stdin != nil {
		in := bufio.NewReader(a.stdin)
		w.ask = func(name, hint string) (string, error) {
			fmt.Fprintf(a.stdout, "%s; type it and press Enter:\n", hint)
			line, err := in.ReadString('\n')
			line = strings.TrimSpace(line)
			if line == "" && err != nil && !errors.Is(err, io.EOF) {
				return "", jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "reading %s from stdin: %w", name, err)
			}
			return line, nil
		}
	}
	return w
}

// showLink tells the owner a sign-in link to open: the dashboard's link
// hook, else the command line's words.
func (w pluginWork) showLink(who, link string) {
	if w.link != nil {
		fmt.Fprintf(w.out, "Sign in to %s in your browser.\n", who)
		w.link(link)
		return
	}
	fmt.Fprintf(w.out, "Sign in to %s in your browser:\n\n  %s\n\nWaiting for the sign-in (Ctrl-C to stop)...\n", who, link)
}

// signInAgain renews the sign-in of an installed plugin (`plugins signin`).
func (w pluginWork) signInAgain(ctx context.Context, sp collection.Plugin) error {
	name := sp.Plugin.Manifest.Name
	if _, err := w.db.InstalledPlugin(ctx, name); err != nil {
		return jarvisbot.Errorf(jarvisbot.ErrorCode(err), "%s is not installed: run jarvisbot plugins install %s", name, name)
	}
	if builtins.Has(name) {
		return w.renewBuiltin(ctx, sp.Plugin)
	}
	if si := sp.Plugin.Ext.SignIn; si != nil && si.Method == plugins.SignInAPIKey && sp.Plugin.MCP != nil {
		return w.settingsSignIn(ctx, sp.Plugin)
	}
	if !sp.Plugin.NeedsSignIn() {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s has no browser sign-in to renew (%s)", name, sp.Plugin.Ext.SignIn.Text())
	}
	return w.signIn(ctx, sp.Plugin)
}

// preferService marks a plugin or MCP server preferred (or clears the
// mark) and says what that changes.
func preferService(ctx context.Context, w io.Writer, db store.Preferences, kind, name string, clear bool) error {
	if clear {
		if err := db.Unprefer(ctx, kind, name); err != nil {
			return err
		}
		fmt.Fprintf(w, "%s is no longer preferred: a tie with another of its kind goes to the one used last.\n", name)
		return nil
	}
	if err := db.Prefer(ctx, kind, name); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s is now preferred: when it and another %s of its kind match a request equally, it wins (see jarvisbot route).\n", name, map[string]string{"plugin": "plugin", "mcp": "MCP server"}[kind])
	return nil
}

// installFolder installs a plugin folder of the owner's own.
func (a *cli) installFolder(ctx context.Context, cfg config.Config, dir string, all collection.Collection, f pluginsFlags) error {
	db, err := a.OpenStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	sp, err := localInstall{a: a, cfg: cfg, db: db, yes: *f.yes, trusted: *f.trusted}.install(ctx, dir, all)
	if err != nil || sp == nil {
		return err
	}
	return a.cliPluginWork(cfg, db, all).install(ctx, *sp, installOptions{noSignin: *f.noSignin})
}

// pluginCall runs `plugins call NAME TOOL [JSON]`.
func (a *cli) pluginCall(ctx context.Context, name, tool, args string) error {
	cfg, all, db, err := a.storeAndCollection(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	return a.callBuiltin(ctx, cfg, db, all, name, tool, args)
}

// installOptions are how a plugin is installed.
type installOptions struct {
	noSignin  bool // sign in later
	allGoogle bool // one Google sign-in for every Google plugin
}

// storePluginFacts are what `plugins show` says of a plugin of the store,
// with where the owner stands with it.
func storePluginFacts(ctx context.Context, db *sqlstore.DB, sp collection.Plugin) (pluginFacts, error) {
	f := pluginOf(sp)
	f.State = "not installed"
	if ip, err := db.InstalledPlugin(ctx, f.Name); err == nil {
		f.State, f.Since = string(ip.State), ip.InstalledAt
	} else if jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		return f, err
	}
	if sp.Local != "" {
		f.From = "your plugin folder, copied to " + sp.Local
		if rec, err := db.SkillRecord(ctx, "skill:"+f.Name); err == nil {
			f.From = rec.Source
		} else if jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
			return f, err
		}
		f.From = visible.Text(f.From)
	}
	return f, nil
}

// isFolderRef tells a plugin folder from a name in the store: a path, or
// a folder that is not the name of a plugin in the store.
func isFolderRef(ref string, all collection.Collection) bool {
	if strings.ContainsAny(ref, `/\`) || ref == "." || ref == ".." {
		return true
	}
	if _, ok := all[ref]; ok {
		return false
	}
	fi, err := os.Stat(ref)
	return err == nil && fi.IsDir()
}

// install records a plugin of the store as installed, turns its manual
// on and its servers (plugins.Install, AddServers), and signs in when it
// needs to.
func (w pluginWork) install(ctx context.Context, sp collection.Plugin, o installOptions) error {
	p := sp.Plugin
	if err := plugins.Install(ctx, w.db, p); err != nil {
		return err
	}
	words := "its name and description"
	if len(sp.Manual.Words) > 0 {
		words = quoteList(sp.Manual.Words, 4)
	}
	fmt.Fprintf(w.out, "Installed %s. Its manual (skill:%s) is on: %s now route to it.\n", visible.Text(p.DisplayName()), p.Manifest.Name, visible.Text(words))
	added, err := plugins.AddServers(ctx, w.db, p)
	for _, s := range added {
		switch {
		case s.Kept:
			fmt.Fprintf(w.out, "You already have an MCP server named %s; it is kept as it is.\n", s.ID)
		case s.On:
			fmt.Fprintf(w.out, "Its MCP server %s (%s) is on; jarvisbot connects to it when the service runs (check it with jarvisbot mcp list --check).\n", s.ID, visible.Text(s.Server.URL+s.Server.Command))
		default:
			fmt.Fprintf(w.out, "Its MCP server %s (%s) is recorded, off until you sign in.\n", s.ID, visible.Text(s.Server.URL+s.Server.Command))
		}
	}
	if err != nil {
		return err
	}
	if builtins.Has(p.Manifest.Name) && !o.noSignin {
		return w.signInBuiltin(ctx, p, o.allGoogle)
	}
	if p.NeedsSignIn() && !o.noSignin {
		return w.signIn(ctx, p)
	}
	if si := p.Ext.SignIn; si != nil && si.Method == plugins.SignInAPIKey && len(added) > 0 && !o.noSignin {
		return w.settingsSignIn(ctx, p)
	}
	fmt.Fprintln(w.out, p.ConnectNote())
	return nil
}

// remove uninstalls a plugin: its manual's words and its servers go, its
// sign-in is forgotten, and a local plugin's copy in the data directory is
// deleted (the folder it was installed from is not touched).
func (w pluginWork) remove(ctx context.Context, sp collection.Plugin) error {
	name := sp.Plugin.Manifest.Name
	if err := plugins.Uninstall(ctx, w.db, name, sp.Local != ""); err != nil {
		return err
	}
	// A keyring that fails does not keep the plugin installed: the rest
	// goes, and the command fails saying what stays and how to remove it.
	var kept error
	switch {
	case builtins.Has(name):
		kept = w.forgetBuiltin(ctx, name)
	case sp.Plugin.NeedsSignIn():
		kept = w.forgetSignIn(ctx, name)
	}
	if sp.Local != "" {
		if _, err := collection.LocalDir(w.cfg.DataDir).Remove(filepath.Base(sp.Local)); err != nil {
			return err
		}
		if err := w.db.ForgetSkill(ctx, "skill:"+name); err != nil {
			return err
		}
	}
	if kept != nil {
		return jarvisbot.Errorf(jarvisbot.ErrorCode(kept), "removed %s, but its sign-in stays in the keyring: %w; once the keyring works again, delete it with jarvisbot secrets delete %s", name, kept, signin.KeyName(name))
	}
	if sp.Local != "" {
		fmt.Fprintf(w.out, "Removed %s and its copy in %s: its manual's words no longer route to it, and its sign-in is forgotten. To install it again, install its folder.\n", visible.Text(sp.Plugin.DisplayName()), sp.Local)
		return nil
	}
	fmt.Fprintf(w.out, "Removed %s: its manual's words no longer route to it, and its sign-in is forgotten.\n", sp.Plugin.DisplayName())
	return nil
}

// forgetSignIn removes a plugin's sign-in from the keyring.
func (w pluginWork) forgetSignIn(ctx context.Context, plugin string) error {
	mgr, done, err := w.signin()
	if err != nil {
		return err
	}
	defer done()
	return mgr.Forget(ctx, plugin)
}

// signIn runs the browser sign-in of a plugin (P3, signin.Manager.SignIn).
func (w pluginWork) signIn(ctx context.Context, p *plugins.Plugin) error {
	mgr, done, err := w.signin()
	if err != nil {
		return err
	}
	defer done()
	var scopes []string
	if p.Ext.SignIn != nil {
		scopes = p.Ext.SignIn.Scopes
	}
	sp := signin.Plugin{Name: p.Manifest.Name, DisplayName: p.DisplayName(), URL: p.SignInURL(), Scopes: scopes}
	err = mgr.SignIn(ctx, w.db, sp, func(link string) { w.showLink(p.DisplayName(), link) })
	if err != nil {
		return err
	}
	fmt.Fprintf(w.out, "Signed in to %s. The sign-in is kept in the keyring; its tools join your agents while the service runs.\n", p.DisplayName())
	return nil
}

// listeningSignin is a sign-in manager whose callback listener serves
// this command; done closes it.
func (a *cli) listeningSignin(cfg config.Config) (*signin.Manager, func(), error) {
	kr, err := a.OpenSecrets(cfg)
	if err != nil {
		return nil, nil, err
	}
	mgr := signin.NewManager(signin.Options{Keyring: kr, ListenAddr: cfg.SignIn.Listen, PublicBaseURL: cfg.SignIn.PublicBaseURL, LockDir: app.SigninLockDir(cfg)})
	return mgr, func() {
		// The sign-in is stored (or failed) by now; the listener goes with
		// the process anyway.
		if err := mgr.Close(); err != nil {
			fmt.Fprintf(a.Stderr, "jarvisbot: closing the sign-in listener: %v\n", err)
		}
	}, nil
}

// storeAndCollection opens what the plugin commands read: the config, the
// plugin collection (shipped and local) and the store, which the caller
// closes.
func (a *cli) storeAndCollection(ctx context.Context) (config.Config, collection.Collection, *sqlstore.DB, error) {
	cfg, err := a.LoadConfig()
	if err != nil {
		return cfg, nil, nil, err
	}
	all, err := collection.Load(cfg.DataDir, a.Stderr)
	if err != nil {
		return cfg, nil, nil, err
	}
	db, err := a.OpenStore(ctx, cfg)
	return cfg, all, db, err
}

// quoteList quotes the first n words: "repo", "pull request" and 3 more.
func quoteList(words []string, n int) string {
	var q []string
	for i, w := range words {
		if i == n {
			q = append(q, fmt.Sprintf("and %d more", len(words)-n))
			break
		}
		q = append(q, fmt.Sprintf("%q", w))
	}
	if len(q) == 0 {
		return "its name"
	}
	return strings.Join(q, ", ")
}

func (a *cli) listPlugins(ctx context.Context, asJSON bool) error {
	_, all, db, err := a.storeAndCollection(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	installed, err := db.InstalledPlugins(ctx)
	if err != nil {
		return err
	}
	list := make(map[string]*plugins.Plugin, len(all))
	for name, sp := range all {
		list[name] = sp.Plugin
	}
	rows := plugins.List(list, installed)
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
	fmt.Fprintf(a.stdout, "%d plugins in the store, %d installed. Install one with: jarvisbot plugins install NAME\n", len(rows), len(installed))
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

// pluginFacts are what `plugins show` says of a plugin of the store, and
// what the dashboard's page of it shows. Text from a local plugin is from
// outside: every control character in it is an escape already (X2).
type pluginFacts struct {
	Name, Display, Version, Description string
	// State is a store.PluginState, or "not installed"; Since is when it
	// was installed.
	State    string
	Since    time.Time
	From     string // where a local plugin came from; "" for a shipped one
	SignIn   string // how the owner signs in, in words
	Builtin  bool
	Channel  bool
	Tools    []catalog.Capability // a built-in plugin's, with their tiers
	Servers  []serverFacts
	Homepage string
	Manual   string // the manual's skill name
	Tier     string // the manual's tier; "" for the default
	Words    []string
	WordsDE  []string
	Body     string
}

// serverFacts is one MCP server a plugin brings.
type serverFacts struct {
	ID, Type string
	Target   string // its command line or address, control characters visible
}

// pluginOf are the facts of sp that do not depend on the owner.
func pluginOf(sp collection.Plugin) pluginFacts {
	p, m := sp.Plugin, sp.Manual
	f := pluginFacts{
		Name: p.Manifest.Name, Display: visible.Text(p.DisplayName()), Version: visible.Text(p.Manifest.Version),
		Description: visible.Text(p.Manifest.Description), SignIn: p.Ext.SignIn.Text(),
		Builtin: p.Ext.Builtin, Channel: p.Ext.Channel, Homepage: visible.Text(p.Manifest.Homepage),
		Manual: m.Name, Tier: string(m.Tier), Body: visible.Text(m.Body),
	}
	for _, w := range m.Words {
		f.Words = append(f.Words, visible.Text(w))
	}
	for _, w := range m.WordsDE {
		f.WordsDE = append(f.WordsDE, visible.Text(w))
	}
	if p.Ext.Builtin {
		f.Tools = builtins.Capabilities(p.Manifest.Name, true)
	}
	if p.MCP != nil {
		for _, id := range slices.Sorted(maps.Keys(p.MCP.Servers)) {
			srv := p.MCP.Servers[id]
			line := []string{showArg(srv.Command)}
			for _, a := range srv.Args {
				line = append(line, showArg(a))
			}
			if srv.URL != "" {
				line = []string{visible.Text(srv.URL)}
			}
			f.Servers = append(f.Servers, serverFacts{ID: id, Type: srv.Type, Target: strings.Join(line, " ")})
		}
	}
	return f
}

// showPlugin writes a plugin of the store for `plugins show`.
func showPlugin(w io.Writer, f pluginFacts) {
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
	problems := plugins.Validate(dir)
	errs := 0
	for _, p := range problems {
		kind := "error"
		if p.Warning {
			kind = "warning"
		} else {
			errs++
		}
		fmt.Fprintf(w, "%s: %s\n", kind, p)
	}
	if errs > 0 {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s is not a valid plugin: %d problem(s)", dir, errs)
	}
	fmt.Fprintf(w, "%s is a valid plugin", dir)
	if len(problems) > 0 {
		fmt.Fprintf(w, " (%d warning(s))", len(problems))
	}
	fmt.Fprintln(w)
	return nil
}
