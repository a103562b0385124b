package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/namedir"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlite"
)

const skillsUsage = "skills list [--agent NAME] [--json] | show NAME | on NAME | off NAME | install PATH|URL [--yes] | promote NAME --agent AGENT | remove NAME"

// fetchTimeout bounds downloading a SKILL.md from a URL.
const fetchTimeout = 20 * time.Second

// cmdSkills: the owner's view of every skill (S1-S7).
func cmdSkills(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "skills", skillsUsage)
	agent := fs.String("agent", store.DefaultAgent, "list, show: include this agent's own skills; promote: the agent that wrote the skill")
	asJSON := fs.Bool("json", false, "list: one JSON array")
	yes := fs.Bool("yes", false, "install: do not ask; install after showing the text")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fs.Usage()
		return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot %s", skillsUsage)
	}
	sub := pos[0]
	switch {
	case sub == "list" && len(pos) == 1:
	case (sub == "show" || sub == "on" || sub == "off" || sub == "install" || sub == "promote" || sub == "remove") && len(pos) == 2:
	case sub == "list", sub == "show", sub == "on", sub == "off", sub == "install", sub == "promote", sub == "remove":
		return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot %s", skillsUsage)
	default:
		return jarvisbot.Errorf(jarvisbot.EINVALID, "unknown skills subcommand %q: use %s", sub, skillsUsage)
	}
	cfg, db, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	sk := skillCmd{a: a, cfg: cfg, db: db, agent: *agent}
	switch sub {
	case "list":
		return sk.list(ctx, *asJSON)
	case "show":
		return sk.show(ctx, pos[1])
	case "on", "off":
		return sk.switchTo(ctx, pos[1], sub == "on")
	case "install":
		return sk.install(ctx, pos[1], *yes)
	case "promote":
		return sk.promote(ctx, pos[1])
	}
	return sk.remove(ctx, pos[1])
}

type skillCmd struct {
	a     *app
	cfg   config.Config
	db    *sqlite.DB
	agent string
}

// gather lists every skill the agent could use, enabled or not.
func (sk skillCmd) gather(ctx context.Context) ([]skillEntry, error) {
	on := map[string]bool{}
	if err := installedPlugins(ctx, sk.db, on); err != nil {
		return nil, err
	}
	return gatherSkills(ctx, sk.cfg, sk.db, skillScope{agent: sk.agent, connected: on}, sk.a.stderr)
}

func (sk skillCmd) find(ctx context.Context, name string) (skillEntry, error) {
	name = strings.TrimPrefix(name, "skill:")
	all, err := sk.gather(ctx)
	if err != nil {
		return skillEntry{}, err
	}
	for _, e := range all {
		if e.skill.Name == name {
			return e, nil
		}
	}
	return skillEntry{}, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no skill named %q (see jarvisbot skills list)", name)
}

// skillRow is one line of `skills list --json`.
type skillRow struct {
	ID       string  `json:"id"`
	Plugin   *string `json:"plugin"`
	Source   string  `json:"source"`
	Does     string  `json:"does"`
	Enabled  bool    `json:"enabled"`
	State    string  `json:"state"`
	Schedule string  `json:"schedule,omitempty"`
	Voice    bool    `json:"voice,omitempty"`
}

func (sk skillCmd) list(ctx context.Context, asJSON bool) error {
	all, err := sk.gather(ctx)
	if err != nil {
		return err
	}
	rows := []skillRow{}
	hidden := 0
	for _, e := range all {
		if e.source == sourceManual && e.why == whyNotInstalled {
			hidden++ // the store's other manuals: see plugins list
			continue
		}
		r := skillRow{ID: "skill:" + e.skill.Name, Source: e.source, Does: string(e.skill.Does), Enabled: e.on, State: e.state(), Schedule: e.skill.Schedule, Voice: e.skill.Voice}
		if e.skill.Plugin != "" {
			p := e.skill.Plugin
			r.Plugin = &p
		}
		rows = append(rows, r)
	}
	if asJSON {
		b, err := json.Marshal(rows)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(sk.a.stdout, "%s\n", b)
		return err
	}
	tw := tabwriter.NewWriter(sk.a.stdout, 2, 4, 2, ' ', 0)
	for _, r := range rows {
		marks := ""
		if r.Schedule != "" {
			marks += " clock " + r.Schedule
		}
		if r.Voice {
			marks += " voice"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s%s\n", r.ID, r.State, r.Does, r.Source, marks)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(sk.a.stdout, "\n%d skills; %d more are manuals of store plugins you have not installed.\n", len(rows), hidden)
	return nil
}

func (sk skillCmd) show(ctx context.Context, name string) error {
	e, err := sk.find(ctx, name)
	if err != nil {
		return err
	}
	w := sk.a.stdout
	fmt.Fprintf(w, "skill:%s  %s, %s, from %s\n", e.skill.Name, e.state(), e.skill.Does, e.source)
	if e.skill.Path != "" {
		fmt.Fprintf(w, "file: %s\n", e.skill.Path)
	}
	rec, err := sk.db.SkillRecord(ctx, "skill:"+e.skill.Name)
	switch {
	case err == nil && (e.source == sourceOwner || e.source == sourceManual):
		// A manual has a record when it came with a plugin folder of the
		// owner's: the record says whether the owner trusted it.
		fmt.Fprintf(w, "%s from %s on %s\n", rec.Origin, visible.Text(rec.Source), rec.RecordedAt.Local().Format("2006-01-02"))
		if len(rec.Dropped) > 0 {
			fmt.Fprintln(w, "Ignored when it was installed (these fields would have granted behaviour):")
			for _, d := range rec.Dropped {
				fmt.Fprintf(w, "  - %s\n", visible.Text(d))
			}
		}
	case err != nil && jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND:
		return err
	}
	fmt.Fprintf(w, "\n%s", visible.Text(string(e.skill.Render())))
	return nil
}

func (sk skillCmd) switchTo(ctx context.Context, name string, on bool) error {
	e, err := sk.find(ctx, name)
	if err != nil {
		return err
	}
	if err := sk.db.SetSkillEnabled(ctx, "skill:"+e.skill.Name, on); err != nil {
		return err
	}
	word := "off"
	if on {
		word = "on"
	}
	fmt.Fprintf(sk.a.stdout, "skill:%s is %s.\n", e.skill.Name, word)
	if on && e.why == whyNotInstalled {
		fmt.Fprintf(sk.a.stdout, "It is the manual of %s, which is not installed: it joins turns once you run jarvisbot plugins install %s.\n", e.skill.Plugin, e.skill.Plugin)
	}
	return nil
}

// install imports a SKILL.md written for any app (S6): the owner sees the
// full text, with every control character visible (X2), and what will be
// ignored, and says yes before anything is written.
func (sk skillCmd) install(ctx context.Context, src string, yes bool) error {
	s, err := importSkill(ctx, src)
	if err != nil {
		return err
	}
	dest, kind, err := ownSkills(sk.cfg).Stat(s.Name)
	if err != nil {
		return err
	}
	if kind != namedir.Missing {
		return jarvisbot.Errorf(jarvisbot.ECONFLICT, "a skill named %q is installed already at %s: remove it first (jarvisbot skills remove %s)", s.Name, dest, s.Name)
	}
	w := sk.a.stdout
	fmt.Fprintf(w, "The skill %q from %s, in full:\n\n", s.Name, visible.Text(src))
	showInFull(w, s.Original)
	if len(s.Dropped) > 0 {
		fmt.Fprintln(w, "jarvisbot will ignore these fields (they would grant behaviour):")
		showDropped(w, "", s.Dropped)
	}
	fmt.Fprintf(w, "It will %s.\n", entryText(s.Skill))
	if !yes {
		ok, err := confirm(sk.a, fmt.Sprintf("Install it into %s? [y/N] ", dest), "jarvisbot skills install "+src+" --yes")
		if err != nil || !ok {
			return err
		}
	}
	if err := writeSkill(dest, s.Skill); err != nil {
		return err
	}
	var dropped []string
	for _, d := range s.Dropped {
		dropped = append(dropped, d.Field+": "+d.Reason)
	}
	if err := sk.db.RecordSkill(ctx, store.SkillRecord{Skill: "skill:" + s.Name, Origin: store.SkillImported, Source: src, Dropped: dropped}); err != nil {
		// No half-installed skill without its record.
		if _, rerr := ownSkills(sk.cfg).Remove(s.Name); rerr != nil {
			return fmt.Errorf("%w; and the skill written to %s could not be removed again: %v", err, dest, rerr)
		}
		return err
	}
	fmt.Fprintf(w, "Installed skill:%s (on). Switch it off with: jarvisbot skills off %s\n", s.Name, s.Name)
	return nil
}

// entryText says how an installed skill may enter turns (S4).
func entryText(s *skills.Skill) string {
	switch skills.EntryFor(s, skills.EnterAt) {
	case skills.EntryTakeOver:
		return "add instructions only, so it may take over a turn when its words match"
	case skills.EntryJoin:
		return "use tools, so it joins a turn only while the model can decline it"
	}
	return "never start by itself: you or the model name it"
}

// imported is a skill read for installation, with the text as it came.
type imported struct {
	*skills.Skill
	Original string
}

// importSkill reads a SKILL.md from a folder, a file or an https URL.
func importSkill(ctx context.Context, src string) (imported, error) {
	if u, err := url.Parse(src); err == nil && (u.Scheme == "https" || u.Scheme == "http") {
		return fetchSkill(ctx, u)
	}
	dir := src
	if fi, err := os.Stat(src); err == nil && !fi.IsDir() {
		if filepath.Base(src) != skills.FileName {
			return imported{}, jarvisbot.Errorf(jarvisbot.EINVALID, "%s is not a %s: give its folder or the file itself", src, skills.FileName)
		}
		dir = filepath.Dir(src)
	}
	s, data, err := skills.ImportDir(dir)
	if err != nil {
		return imported{}, err
	}
	return imported{Skill: s, Original: string(data)}, nil
}

func fetchSkill(ctx context.Context, u *url.URL) (imported, error) {
	if u.Scheme != "https" && !isLoopbackHost(u.Hostname()) {
		return imported{}, jarvisbot.Errorf(jarvisbot.EINVALID, "%s: use an https URL", u.Redacted())
	}
	if pathBase(u.Path) != skills.FileName {
		return imported{}, jarvisbot.Errorf(jarvisbot.EINVALID, "%s does not end in /NAME/%s: give the raw file's URL", u.Redacted(), skills.FileName)
	}
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return imported{}, jarvisbot.Errorf(jarvisbot.EINVALID, "%s: %w", u.Redacted(), err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return imported{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "download %s: %w", u.Redacted(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return imported{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "download %s: the server answered %s", u.Redacted(), resp.Status)
	}
	limit := skills.FileLimit()
	if err := limit.Check(u.Redacted(), resp.ContentLength); err != nil {
		return imported{}, err
	}
	data, err := limit.ReadAll(resp.Body, u.Redacted())
	if err != nil {
		if jarvisbot.ErrorCode(err) == jarvisbot.EINVALID {
			return imported{}, err
		}
		return imported{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "download %s: %w", u.Redacted(), err)
	}
	// The URL's folder is the skill's folder, for the name check.
	s, err := skills.Import(strings.TrimPrefix(u.Redacted(), u.Scheme+"://"), data)
	if err != nil {
		return imported{}, err
	}
	return imported{Skill: s, Original: string(data)}, nil
}

func pathBase(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

func isLoopbackHost(h string) bool { return h == "localhost" || h == "127.0.0.1" || h == "::1" }

// writeSkill writes a skill's folder atomically: into a temporary folder
// beside it, then renamed, so a failure leaves nothing half-written.
func writeSkill(dest string, s *skills.Skill) error {
	parent := filepath.Dir(dest)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", parent, err)
	}
	tmp, err := os.MkdirTemp(parent, ".install-")
	if err != nil {
		return fmt.Errorf("create a folder in %s: %w", parent, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, skills.FileName), s.Render(), 0o600); err != nil {
		return errors.Join(fmt.Errorf("write the skill: %w", err), removeLeftover(tmp))
	}
	if err := os.Rename(tmp, dest); err != nil {
		return errors.Join(fmt.Errorf("install the skill at %s: %w", dest, err), removeLeftover(tmp))
	}
	return nil
}

// promote makes an agent's own skill global as a draft (S7): it moves to
// the owner's folder switched off, until the owner switches it on. Both
// names are checked before they become paths, and a skill folder that is
// a link is neither read nor moved (X1).
func (sk skillCmd) promote(ctx context.Context, name string) error {
	name = strings.TrimPrefix(name, "skill:")
	from := agentSkillsDir(sk.cfg, sk.agent)
	dir, err := from.Folder(name)
	if err != nil {
		if jarvisbot.ErrorCode(err) == jarvisbot.ENOTFOUND {
			return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "agent %s has no skill %q (its skills are in %s)", sk.agent, name, from.Path())
		}
		return err
	}
	s, err := skills.Load(dir)
	if err != nil {
		return err
	}
	to := ownSkills(sk.cfg)
	if _, kind, err := to.Stat(s.Name); err != nil {
		return err
	} else if kind != namedir.Missing {
		return jarvisbot.Errorf(jarvisbot.ECONFLICT, "a global skill named %q exists already in %s", s.Name, to.Path())
	}
	id := "skill:" + s.Name
	// Switch off first: the skill must never be global and on by accident.
	if err := sk.db.SetSkillEnabled(ctx, id, false); err != nil {
		return err
	}
	if _, err := from.Move(name, to); err != nil {
		return err
	}
	if err := sk.db.RecordSkill(ctx, store.SkillRecord{Skill: id, Origin: store.SkillPromoted, Source: "agent " + sk.agent}); err != nil {
		return err
	}
	fmt.Fprintf(sk.a.stdout, "Promoted %s from agent %s to all of jarvisbot as a draft (off). Read it with jarvisbot skills show %s, then switch it on with jarvisbot skills on %s\n", id, sk.agent, s.Name, s.Name)
	return nil
}

// remove deletes one of the owner's skills; shipped skills can only be
// switched off. The name must be a plain skill name; a skill folder that
// is a link is removed as a link, never what it leads to (X1).
func (sk skillCmd) remove(ctx context.Context, name string) error {
	name = strings.TrimPrefix(name, "skill:")
	own := ownSkills(sk.cfg)
	_, kind, err := own.Stat(name)
	if err != nil {
		return err
	}
	if kind == namedir.Missing {
		e, ferr := sk.find(ctx, name)
		if ferr == nil && e.source != sourceOwner {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "skill:%s ships with jarvisbot (%s): switch it off instead (jarvisbot skills off %s)", name, e.source, name)
		}
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "you have no skill %q in %s", name, own.Path())
	}
	link, err := own.Remove(name)
	if err != nil {
		return err
	}
	id := "skill:" + name
	if err := sk.db.ForgetSkill(ctx, id); err != nil {
		return err
	}
	if err := sk.db.ClearSkillSwitch(ctx, id); err != nil {
		return err
	}
	if link {
		fmt.Fprintf(sk.a.stdout, "Removed %s: it was a link in %s, and only the link is gone; what it led to is untouched.\n", id, own.Path())
		return nil
	}
	fmt.Fprintf(sk.a.stdout, "Removed %s.\n", id)
	return nil
}
