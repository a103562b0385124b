package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/namedir"
	"github.com/jarvisbot/jarvisbot/internal/sizelimit"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/plugins"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlite"
)

// `plugins install DIR` (P1, S6, X1, X2): a plugin folder of the owner's
// own is copied into a staging folder in the data directory, checked
// there, shown in full (its servers with their commands and addresses, its
// skills as written, control characters visible), and moved into place
// only on the owner's yes. Unless the owner trusts the plugin, its skills
// pass the import policy of a foreign SKILL.md: what would grant behaviour
// (trigger words, a tier, a schedule, a voice mark, ...) is listed and
// left out of the installed copy, so the decision holds for every later
// reading of it. What is shown is the staged copy, which is what gets
// installed: a folder changed after the view changes nothing.

// pluginFolderLimit bounds the copy of a plugin folder: a manifest, a
// configuration, a few manuals, perhaps a bundled server.
func pluginFolderLimit() sizelimit.Limit {
	return sizelimit.Limit{What: "a plugin folder", Max: 256 << 20, Hint: "name a large server in mcp.json (e.g. run with npx) instead of bundling it"}
}

// localInstall is one `plugins install DIR`.
type localInstall struct {
	a       *app
	cfg     config.Config
	db      *sqlite.DB
	yes     bool // install without asking, after showing everything
	trusted bool // honour every field of the plugin's skills
}

// pluginSkill is one skill of a staged plugin, as written and as it will be
// installed.
type pluginSkill struct {
	rel      string // "skills/NAME/SKILL.md"
	manual   bool
	original string
	skill    *skills.Skill // under the import policy
}

// install stages, shows and, on yes, installs the plugin folder src. It
// returns the installed plugin, or nil when the owner said no.
func (li localInstall) install(ctx context.Context, src string, all map[string]shipped) (_ *shipped, err error) {
	p, err := plugins.Load(src)
	if err != nil {
		return nil, err
	}
	name := p.Manifest.Name
	if sp, ok := all[name]; ok && sp.local == "" {
		return nil, jarvisbot.Errorf(jarvisbot.ECONFLICT, "the plugin in %s is named %q, like the %s plugin that ships with jarvisbot, and a local plugin never replaces a shipped one: give yours another name in its plugin.json (\"name\") and install it again, or install the shipped one with jarvisbot plugins install %s",
			visible.Text(src), name, sp.plugin.DisplayName(), name)
	}
	switch _, err := li.db.InstalledPlugin(ctx, name); {
	case err == nil:
		return nil, jarvisbot.Errorf(jarvisbot.ECONFLICT, "a plugin named %q is installed already: remove it first (jarvisbot plugins remove %s), then install the folder again", name, name)
	case jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND:
		return nil, err
	}
	local := localPlugins(li.cfg)
	dest, _, err := local.Stat(name)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(local.Path(), 0o700); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "create %s: %w", local.Path(), err)
	}
	// A name starting with a dot is not a plain plugin name: loadStore
	// never takes a staging folder for a plugin.
	stage, err := os.MkdirTemp(local.Path(), ".install-")
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "create a staging folder in %s: %w", local.Path(), err)
	}
	defer func() { err = errors.Join(err, removeLeftover(stage)) }() // gone already once it is moved into place
	if err := copyPluginFolder(src, stage); err != nil {
		return nil, err
	}
	if p, err = plugins.Load(stage); err != nil {
		return nil, err
	}
	if p.Manifest.Name != name {
		return nil, jarvisbot.Errorf(jarvisbot.ECONFLICT, "%s changed while it was copied (its name is now %q): install it again", visible.Text(src), p.Manifest.Name)
	}
	list, err := readPluginSkills(stage, p)
	if err != nil {
		return nil, err
	}
	li.show(src, p, list)
	if !li.yes {
		ok, err := confirm(li.a, fmt.Sprintf("Install %s into %s? [y/N] ", name, dest), "jarvisbot plugins install "+src+" --yes")
		if err != nil || !ok {
			return nil, err
		}
	}
	if !li.trusted {
		for _, s := range list {
			if err := os.WriteFile(filepath.Join(stage, filepath.FromSlash(s.rel)), s.skill.Render(), 0o600); err != nil {
				return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "write %s of the plugin: %w", s.rel, err)
			}
		}
	}
	manual, err := skills.Manual(os.DirFS(stage), rebase(p))
	switch {
	case jarvisbot.ErrorCode(err) == jarvisbot.ENOTFOUND:
		manual = placeholderManual(p)
	case err != nil:
		return nil, err
	}
	// A copy left by an earlier install of the same name, since removed.
	_, kind, err := local.Stat(name)
	if err != nil {
		return nil, err
	}
	if kind != namedir.Missing {
		if _, err := local.Remove(name); err != nil {
			return nil, err
		}
	}
	if err := os.Rename(stage, dest); err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "install the plugin at %s: %w", dest, err)
	}
	if err := li.record(ctx, src, name, list); err != nil {
		return nil, err
	}
	p.Dir = dest
	return &shipped{plugin: p, manual: manual, local: dest}, nil
}

// record keeps where the plugin came from and the owner's decision on its
// skills (S6), shown by plugins show and skills show.
func (li localInstall) record(ctx context.Context, src, name string, list []pluginSkill) error {
	var dropped []string
	for _, s := range list {
		for _, d := range s.skill.Dropped {
			dropped = append(dropped, s.rel+": "+d.Field+": "+d.Reason)
		}
	}
	source := "the plugin folder " + src + ", not trusted: the fields of its skills that would grant behaviour are ignored"
	if li.trusted {
		source = "the plugin folder " + src + ", trusted by you (--trusted): every field of its skills is honoured"
		dropped = nil
	}
	return li.db.RecordSkill(ctx, store.SkillRecord{Skill: "skill:" + name, Origin: store.SkillImported, Source: source, Dropped: dropped})
}

// readPluginSkills reads every skill of the staged plugin, its manual
// first, under the import policy.
func readPluginSkills(stage string, p *plugins.Plugin) ([]pluginSkill, error) {
	names := slices.Clone(p.Skills)
	slices.SortStableFunc(names, func(a, b string) int {
		switch {
		case a == p.Manifest.Name:
			return -1
		case b == p.Manifest.Name:
			return 1
		}
		return strings.Compare(a, b)
	})
	var out []pluginSkill
	for _, n := range names {
		rel := plugins.SkillsDir + "/" + n + "/" + plugins.SkillFile
		s, data, err := skills.ImportDir(filepath.Join(stage, plugins.SkillsDir, n))
		if err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.ErrorCode(err), "the plugin's %s: %w", rel, err)
		}
		ps := pluginSkill{rel: rel, manual: n == p.Manifest.Name, original: string(data), skill: s}
		if ps.manual {
			manualPolicy(s, rel, data)
		}
		out = append(out, ps)
	}
	return out, nil
}

// manualPolicy adjusts the import policy for a plugin's manual. Its folder
// makes it the plugin's manual, so metadata.jarvisbot.plugin takes nothing
// away. What it says it does is honoured: any kind is at most as free as an
// imported skill's (instructions), and a manual that uses its plugin's
// tools should join a turn, not take it over (S4).
func manualPolicy(s *skills.Skill, path string, data []byte) {
	s.Does = skills.KindTools
	if own, err := skills.Parse(path, data); err == nil && own.Does != "" {
		s.Does = own.Does
	}
	s.Dropped = slices.DeleteFunc(s.Dropped, func(d skills.Dropped) bool {
		f := strings.ToLower(d.Field)
		return f == "metadata."+skills.Namespace+"plugin" || f == "metadata."+skills.Namespace+"does"
	})
}

// show is the consent view of a plugin folder.
func (li localInstall) show(src string, p *plugins.Plugin, list []pluginSkill) {
	w := li.a.stdout
	fmt.Fprintf(w, "The plugin %s (%s) %s from %s:\n", visible.Text(p.DisplayName()), p.Manifest.Name, visible.Text(p.Manifest.Version), visible.Text(src))
	if p.Manifest.Description != "" {
		fmt.Fprintf(w, "  %s\n", visible.Text(p.Manifest.Description))
	}
	fmt.Fprintf(w, "Sign-in: %s\n", signInText(p.Ext.SignIn))
	if p.MCP == nil || len(p.MCP.Servers) == 0 {
		fmt.Fprintln(w, "It brings no MCP server.")
	} else {
		fmt.Fprintf(w, "It brings %d MCP server(s), which jarvisbot starts or connects to when the service runs:\n", len(p.MCP.Servers))
		for _, id := range sortedKeys(p.MCP.Servers) {
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
		if s.manual {
			what = " (its manual)"
		}
		fmt.Fprintf(w, "\n%s%s, in full:\n", s.rel, what)
		showInFull(w, s.original)
		for _, d := range s.skill.Dropped {
			dropped = append(dropped, skills.Dropped{Field: s.rel + ": " + d.Field, Reason: d.Reason})
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
		if s.manual && !li.trusted {
			fmt.Fprintf(w, "Its manual will %s.\n", entryText(s.skill))
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
	for _, k := range sortedKeys(srv.Env) {
		fmt.Fprintf(w, "    env:     %s=%s\n", visible.Text(k), visible.Text(srv.Env[k]))
	}
	if srv.Cwd != "" {
		fmt.Fprintf(w, "    in:      %s\n", visible.Text(srv.Cwd))
	}
	if srv.URL != "" {
		fmt.Fprintf(w, "    address: %s\n", visible.Text(srv.URL))
	}
	for _, k := range sortedKeys(srv.Headers) {
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

// copyPluginFolder copies the regular files and folders of src into dst,
// which exists and is empty. It reads through an os.Root, so a file
// swapped for a link after validation cannot lead out of src; links are
// not copied. The whole folder is measured before anything is copied, and
// each file is copied only up to the size it had then.
func copyPluginFolder(src, dst string) error {
	root, err := os.OpenRoot(src)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "plugin folder %s cannot be opened: %w", visible.Text(src), err)
	}
	defer root.Close()
	type file struct {
		rel  string
		size int64
		exec bool
	}
	var dirs []string
	var files []file
	var total int64
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case p == ".":
			return nil
		case d.IsDir():
			dirs = append(dirs, p)
			return nil
		case !d.Type().IsRegular():
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		total += fi.Size()
		files = append(files, file{rel: p, size: fi.Size(), exec: fi.Mode()&0o100 != 0})
		return nil
	})
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "read plugin folder %s: %w", visible.Text(src), err)
	}
	if err := pluginFolderLimit().Check(src, total); err != nil {
		return err
	}
	for _, d := range dirs {
		if err := os.Mkdir(filepath.Join(dst, filepath.FromSlash(d)), 0o700); err != nil {
			return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "copy plugin folder %s: %w", visible.Text(src), err)
		}
	}
	for _, f := range files {
		if err := copyFile(root, f.rel, filepath.Join(dst, filepath.FromSlash(f.rel)), f.size, f.exec); err != nil {
			return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "copy %s of plugin folder %s: %w", f.rel, visible.Text(src), err)
		}
	}
	return nil
}

// copyFile copies at most size bytes of rel; a bundled program stays
// executable (by the owner only).
func copyFile(root *os.Root, rel, dst string, size int64, exec bool) error {
	in, err := root.Open(rel)
	if err != nil {
		return err
	}
	defer in.Close()
	mode := os.FileMode(0o600)
	if exec {
		mode = 0o700
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, io.LimitReader(in, size))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
