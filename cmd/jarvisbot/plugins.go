package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/plugins/builtins"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlite"
)

const pluginsUsage = "plugins list [--json] | show NAME | install NAME [--no-signin] [--all-google] | install DIR [--yes] [--trusted] [--no-signin] | signin NAME | call NAME TOOL [JSON] | prefer [--clear] NAME | remove NAME | validate DIR"

// pluginsFlags are the flags of `jarvisbot plugins`.
type pluginsFlags struct {
	asJSON, noSignin, yes, trusted, clear, allGoogle *bool
}

// cmdPlugins: the plugin store (P2) and the Agent Plugins checker (P1).
func cmdPlugins(ctx context.Context, a *app, args []string) error {
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
func (a *app) pluginNamed(ctx context.Context, sub, ref string, f pluginsFlags) error {
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	all, err := collection.Load(cfg.DataDir, a.stderr)
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
	db, err := a.openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	name := sp.Plugin.Manifest.Name
	if *f.allGoogle && (sub != "install" || builtins.ProviderOf(name) != builtins.Google) {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "--all-google is for installing a Google plugin (google-calendar, gmail, google-drive)")
	}
	switch sub {
	case "install":
		return a.installPlugin(ctx, cfg, db, sp, installOptions{noSignin: *f.noSignin, allGoogle: *f.allGoogle, all: all})
	case "signin":
		if _, err := db.InstalledPlugin(ctx, name); err != nil {
			return jarvisbot.Errorf(jarvisbot.ErrorCode(err), "%s is not installed: run jarvisbot plugins install %s", name, name)
		}
		if builtins.Has(name) {
			return a.renewBuiltin(ctx, cfg, db, all, sp.Plugin)
		}
		if si := sp.Plugin.Ext.SignIn; si != nil && si.Method == plugins.SignInAPIKey && sp.Plugin.MCP != nil {
			return a.settingsSignIn(ctx, cfg, db, sp.Plugin)
		}
		if !sp.Plugin.NeedsSignIn() {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s has no browser sign-in to renew (%s)", name, sp.Plugin.Ext.SignIn.Text())
		}
		return a.signIn(ctx, cfg, db, sp.Plugin)
	case "remove":
		return a.removePlugin(ctx, cfg, db, sp)
	case "prefer":
		return preferService(ctx, a.stdout, db, "plugin", name, *f.clear)
	}
	return a.showStorePlugin(ctx, db, sp)
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
func (a *app) installFolder(ctx context.Context, cfg config.Config, dir string, all collection.Collection, f pluginsFlags) error {
	db, err := a.openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	sp, err := localInstall{a: a, cfg: cfg, db: db, yes: *f.yes, trusted: *f.trusted}.install(ctx, dir, all)
	if err != nil || sp == nil {
		return err
	}
	return a.installPlugin(ctx, cfg, db, *sp, installOptions{noSignin: *f.noSignin, all: all})
}

// pluginCall runs `plugins call NAME TOOL [JSON]`.
func (a *app) pluginCall(ctx context.Context, name, tool, args string) error {
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
	all       collection.Collection
}

// showStorePlugin shows a plugin of the store with where the owner stands
// with it.
func (a *app) showStorePlugin(ctx context.Context, db *sqlite.DB, sp collection.Plugin) error {
	name := sp.Plugin.Manifest.Name
	state := "not installed"
	if ip, err := db.InstalledPlugin(ctx, name); err == nil {
		state = string(ip.State) + " since " + ip.InstalledAt.Local().Format("2006-01-02 15:04")
	} else if jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		return err
	}
	from := ""
	if sp.Local != "" {
		from = "your plugin folder, copied to " + sp.Local
		if rec, err := db.SkillRecord(ctx, "skill:"+name); err == nil {
			from = rec.Source
		} else if jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
			return err
		}
	}
	showPlugin(a.stdout, sp, state, from)
	return nil
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

// installPlugin records a plugin of the store as installed, turns its
// manual on and its servers (plugins.Install, AddServers), and signs in
// when it needs to.
func (a *app) installPlugin(ctx context.Context, cfg config.Config, db *sqlite.DB, sp collection.Plugin, o installOptions) error {
	p := sp.Plugin
	if err := plugins.Install(ctx, db, p); err != nil {
		return err
	}
	words := "its name and description"
	if len(sp.Manual.Words) > 0 {
		words = quoteList(sp.Manual.Words, 4)
	}
	fmt.Fprintf(a.stdout, "Installed %s. Its manual (skill:%s) is on: %s now route to it.\n", visible.Text(p.DisplayName()), p.Manifest.Name, visible.Text(words))
	added, err := plugins.AddServers(ctx, db, p)
	for _, s := range added {
		switch {
		case s.Kept:
			fmt.Fprintf(a.stdout, "You already have an MCP server named %s; it is kept as it is.\n", s.ID)
		case s.On:
			fmt.Fprintf(a.stdout, "Its MCP server %s (%s) is on; jarvisbot connects to it when the service runs (check it with jarvisbot mcp list --check).\n", s.ID, visible.Text(s.Server.URL+s.Server.Command))
		default:
			fmt.Fprintf(a.stdout, "Its MCP server %s (%s) is recorded, off until you sign in.\n", s.ID, visible.Text(s.Server.URL+s.Server.Command))
		}
	}
	if err != nil {
		return err
	}
	if builtins.Has(p.Manifest.Name) && !o.noSignin {
		return a.signInBuiltin(ctx, cfg, db, o.all, p, o.allGoogle)
	}
	if p.NeedsSignIn() && !o.noSignin {
		return a.signIn(ctx, cfg, db, p)
	}
	if si := p.Ext.SignIn; si != nil && si.Method == plugins.SignInAPIKey && len(added) > 0 && !o.noSignin {
		return a.settingsSignIn(ctx, cfg, db, p)
	}
	fmt.Fprintln(a.stdout, p.ConnectNote())
	return nil
}

// removePlugin uninstalls a plugin: its manual's words and its servers go,
// its sign-in is forgotten, and a local plugin's copy in the data
// directory is deleted (the folder it was installed from is not touched).
func (a *app) removePlugin(ctx context.Context, cfg config.Config, db *sqlite.DB, sp collection.Plugin) error {
	name := sp.Plugin.Manifest.Name
	if err := plugins.Uninstall(ctx, db, name, sp.Local != ""); err != nil {
		return err
	}
	// A keyring that fails does not keep the plugin installed: the rest
	// goes, and the command fails saying what stays and how to remove it.
	var kept error
	switch {
	case builtins.Has(name):
		kept = a.forgetBuiltin(ctx, cfg, db, name)
	case sp.Plugin.NeedsSignIn():
		kept = a.forgetSignIn(ctx, cfg, name)
	}
	if sp.Local != "" {
		if _, err := collection.LocalDir(cfg.DataDir).Remove(filepath.Base(sp.Local)); err != nil {
			return err
		}
		if err := db.ForgetSkill(ctx, "skill:"+name); err != nil {
			return err
		}
	}
	if kept != nil {
		return jarvisbot.Errorf(jarvisbot.ErrorCode(kept), "removed %s, but its sign-in stays in the keyring: %w; once the keyring works again, delete it with jarvisbot secrets delete %s", name, kept, signin.KeyName(name))
	}
	if sp.Local != "" {
		fmt.Fprintf(a.stdout, "Removed %s and its copy in %s: its manual's words no longer route to it, and its sign-in is forgotten. To install it again, install its folder.\n", visible.Text(sp.Plugin.DisplayName()), sp.Local)
		return nil
	}
	fmt.Fprintf(a.stdout, "Removed %s: its manual's words no longer route to it, and its sign-in is forgotten.\n", sp.Plugin.DisplayName())
	return nil
}

// forgetSignIn removes a plugin's sign-in from the keyring.
func (a *app) forgetSignIn(ctx context.Context, cfg config.Config, plugin string) error {
	kr, err := a.openSecrets(cfg)
	if err != nil {
		return err
	}
	return signin.NewManager(signin.Options{Keyring: kr, LockDir: signinLockDir(cfg)}).Forget(ctx, plugin)
}

// signIn runs the browser sign-in of a plugin (P3, signin.Manager.SignIn)
// on jarvisbot's own listener.
func (a *app) signIn(ctx context.Context, cfg config.Config, db *sqlite.DB, p *plugins.Plugin) error {
	mgr, done, err := a.listeningSignin(cfg)
	if err != nil {
		return err
	}
	defer done()
	var scopes []string
	if p.Ext.SignIn != nil {
		scopes = p.Ext.SignIn.Scopes
	}
	sp := signin.Plugin{Name: p.Manifest.Name, DisplayName: p.DisplayName(), URL: p.SignInURL(), Scopes: scopes}
	err = mgr.SignIn(ctx, db, sp, func(link string) {
		fmt.Fprintf(a.stdout, "Sign in to %s in your browser:\n\n  %s\n\nWaiting for the sign-in (Ctrl-C to stop)...\n", p.DisplayName(), link)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "Signed in to %s. The sign-in is kept in the keyring; its tools join your agents while the service runs.\n", p.DisplayName())
	return nil
}

// listeningSignin is a sign-in manager whose callback listener serves
// this command; done closes it.
func (a *app) listeningSignin(cfg config.Config) (*signin.Manager, func(), error) {
	kr, err := a.openSecrets(cfg)
	if err != nil {
		return nil, nil, err
	}
	mgr := signin.NewManager(signin.Options{Keyring: kr, ListenAddr: cfg.SignIn.Listen, PublicBaseURL: cfg.SignIn.PublicBaseURL, LockDir: signinLockDir(cfg)})
	return mgr, func() {
		// The sign-in is stored (or failed) by now; the listener goes with
		// the process anyway.
		if err := mgr.Close(); err != nil {
			fmt.Fprintf(a.stderr, "jarvisbot: closing the sign-in listener: %v\n", err)
		}
	}, nil
}

// storeAndCollection opens what the plugin commands read: the config, the
// plugin collection (shipped and local) and the store, which the caller
// closes.
func (a *app) storeAndCollection(ctx context.Context) (config.Config, collection.Collection, *sqlite.DB, error) {
	cfg, err := a.loadConfig()
	if err != nil {
		return cfg, nil, nil, err
	}
	all, err := collection.Load(cfg.DataDir, a.stderr)
	if err != nil {
		return cfg, nil, nil, err
	}
	db, err := a.openStore(ctx, cfg)
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

func (a *app) listPlugins(ctx context.Context, asJSON bool) error {
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

// showPlugin writes a plugin of the store; from says where a local one
// came from. A local plugin's text is from outside: every control
// character is shown as an escape (X2).
func showPlugin(w io.Writer, sp collection.Plugin, state, from string) {
	p, m := sp.Plugin, sp.Manual
	fmt.Fprintf(w, "%s (%s) %s\n%s\n\n", visible.Text(p.DisplayName()), p.Manifest.Name, visible.Text(p.Manifest.Version), visible.Text(p.Manifest.Description))
	fmt.Fprintf(w, "State:    %s\n", state)
	if from != "" {
		fmt.Fprintf(w, "From:     %s\n", visible.Text(from))
	}
	fmt.Fprintf(w, "Sign-in:  %s\n", p.Ext.SignIn.Text())
	switch {
	case p.Ext.Builtin:
		fmt.Fprintln(w, "Tools:    built into jarvisbot")
		for _, cp := range builtins.Capabilities(p.Manifest.Name, true) {
			fmt.Fprintf(w, "          %s [%s]\n", cp.ID, cp.Tier)
		}
	case p.Ext.Channel:
		fmt.Fprintln(w, "Tools:    none: it is one of jarvisbot's chat channels")
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
			fmt.Fprintf(w, "MCP:      %s %s %s\n", id, srv.Type, strings.Join(line, " "))
		}
	}
	if p.Manifest.Homepage != "" {
		fmt.Fprintf(w, "Homepage: %s\n", visible.Text(p.Manifest.Homepage))
	}
	tier := string(m.Tier)
	if tier == "" {
		tier = "monitor (the default)"
	}
	fmt.Fprintf(w, "Manual:   skill:%s, tier %s\n", m.Name, tier)
	fmt.Fprintf(w, "Words:    %s\n", visible.Text(strings.Join(m.Words, ", ")))
	fmt.Fprintf(w, "German:   %s\n", visible.Text(strings.Join(m.WordsDE, ", ")))
	fmt.Fprintf(w, "\n%s", visible.Text(m.Body))
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
