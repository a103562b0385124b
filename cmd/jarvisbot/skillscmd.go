package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

const skillsUsage = "skills list [--agent NAME] [--json] | show NAME | on NAME | off NAME | install PATH|URL [--yes] | promote NAME --agent AGENT | remove NAME"

// cmdSkills: the owner's view of every skill (S1-S7).
func cmdSkills(ctx context.Context, a *cli, args []string) error {
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
	cfg, db, err := a.Open(ctx)
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
	a     *cli
	cfg   config.Config
	db    *sqlstore.DB
	agent string
}

// gather lists every skill the agent could use, enabled or not.
func (sk skillCmd) gather(ctx context.Context) ([]skills.Available, error) {
	on := map[string]bool{}
	if err := collection.AddInstalled(ctx, sk.db, on); err != nil {
		return nil, err
	}
	sc, err := app.SkillScope(sk.cfg, sk.agent, on, sk.a.Stderr)
	if err != nil {
		return nil, err
	}
	return skills.Gather(ctx, sk.db, sc, sk.a.Stderr)
}

func (sk skillCmd) find(ctx context.Context, name string) (skills.Available, error) {
	name = strings.TrimPrefix(name, "skill:")
	all, err := sk.gather(ctx)
	if err != nil {
		return skills.Available{}, err
	}
	for _, e := range all {
		if e.Skill.Name == name {
			return e, nil
		}
	}
	return skills.Available{}, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no skill named %q (see jarvisbot skills list)", name)
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

// listed are the skills `skills list` shows, and how many manuals of
// store plugins that are not installed it leaves out.
func (sk skillCmd) listed(ctx context.Context) (shown []skills.Available, hidden int, err error) {
	all, err := sk.gather(ctx)
	if err != nil {
		return nil, 0, err
	}
	for _, e := range all {
		if e.Source == skills.SourceManual && e.Why == skills.WhyNotInstalled {
			hidden++ // the store's other manuals: see plugins list
			continue
		}
		shown = append(shown, e)
	}
	return shown, hidden, nil
}

func (sk skillCmd) list(ctx context.Context, asJSON bool) error {
	all, hidden, err := sk.listed(ctx)
	if err != nil {
		return err
	}
	rows := []skillRow{}
	for _, e := range all {
		r := skillRow{ID: "skill:" + e.Skill.Name, Source: string(e.Source), Does: string(e.Skill.Does), Enabled: e.On, State: e.State(), Schedule: e.Skill.Schedule, Voice: e.Skill.Voice}
		if e.Skill.Plugin != "" {
			p := e.Skill.Plugin
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
	fmt.Fprintf(w, "skill:%s  %s, %s, from %s\n", e.Skill.Name, e.State(), e.Skill.Does, e.Source)
	if e.Skill.Path != "" {
		fmt.Fprintf(w, "file: %s\n", e.Skill.Path)
	}
	rec, err := sk.db.SkillRecord(ctx, "skill:"+e.Skill.Name)
	switch {
	case err == nil && (e.Source == skills.SourceOwner || e.Source == skills.SourceManual):
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
	fmt.Fprintf(w, "\n%s", visible.Text(string(e.Skill.Render())))
	return nil
}

func (sk skillCmd) switchTo(ctx context.Context, name string, on bool) error {
	e, err := sk.find(ctx, name)
	if err != nil {
		return err
	}
	if err := sk.db.SetSkillEnabled(ctx, "skill:"+e.Skill.Name, on); err != nil {
		return err
	}
	word := "off"
	if on {
		word = "on"
	}
	fmt.Fprintf(sk.a.stdout, "skill:%s is %s.\n", e.Skill.Name, word)
	if on && e.Why == skills.WhyNotInstalled {
		fmt.Fprintf(sk.a.stdout, "It is the manual of %s, which is not installed: it joins turns once you run jarvisbot plugins install %s.\n", e.Skill.Plugin, e.Skill.Plugin)
	}
	return nil
}

// install imports a SKILL.md written for any app (S6): the owner sees the
// full text, with every control character visible (X2), and what will be
// ignored, and says yes before anything is written.
func (sk skillCmd) install(ctx context.Context, src string, yes bool) error {
	in, err := skills.ImportFrom(ctx, nil, src)
	if err != nil {
		return err
	}
	dest, err := sk.consent(src, in)
	if err != nil {
		return err
	}
	if !yes {
		ok, err := confirm(sk.a, fmt.Sprintf("Install it into %s? [y/N] ", dest), "jarvisbot skills install "+src+" --yes")
		if err != nil || !ok {
			return err
		}
	}
	return sk.installRead(ctx, src, in)
}

// consent writes the consent view of a skill read from src (the CLI's and
// the dashboard's): its full text, the fields that will be ignored, and
// how it may enter turns. It returns where the skill would be installed;
// a skill of that name installed already is refused before anything is
// shown.
func (sk skillCmd) consent(src string, in skills.Incoming) (dest string, err error) {
	dest, err = skills.InstallPath(sk.cfg.DataDir, in.Name)
	if err != nil {
		return "", err
	}
	w := sk.a.stdout
	fmt.Fprintf(w, "The skill %q from %s, in full:\n\n", in.Name, visible.Text(src))
	showInFull(w, in.Original)
	if len(in.Dropped) > 0 {
		fmt.Fprintln(w, "jarvisbot will ignore these fields (they would grant behaviour):")
		showDropped(w, "", in.Dropped)
	}
	fmt.Fprintf(w, "It will %s.\n", skills.EntryText(in.Skill))
	return dest, nil
}

// installRead installs a skill the owner has read and agreed to.
func (sk skillCmd) installRead(ctx context.Context, src string, in skills.Incoming) error {
	if err := skills.AddOwn(ctx, sk.db, sk.cfg.DataDir, src, in); err != nil {
		return err
	}
	fmt.Fprintf(sk.a.stdout, "Installed skill:%s (on). Switch it off with: jarvisbot skills off %s\n", in.Name, in.Name)
	return nil
}

// promote makes an agent's own skill global as a draft, off (S7).
func (sk skillCmd) promote(ctx context.Context, name string) error {
	s, err := skills.Promote(ctx, sk.db, sk.cfg.DataDir, sk.agent, name)
	if err != nil {
		return err
	}
	fmt.Fprintf(sk.a.stdout, "Promoted skill:%s from agent %s to all of jarvisbot as a draft (off). Read it with jarvisbot skills show %s, then switch it on with jarvisbot skills on %s\n", s.Name, sk.agent, s.Name, s.Name)
	return nil
}

// remove deletes one of the owner's skills; a shipped skill or a manual
// can only be switched off, and the error says so.
func (sk skillCmd) remove(ctx context.Context, name string) error {
	link, err := skills.RemoveOwn(ctx, sk.db, sk.cfg.DataDir, name)
	name = strings.TrimPrefix(name, "skill:")
	if jarvisbot.ErrorCode(err) == jarvisbot.ENOTFOUND {
		if e, ferr := sk.find(ctx, name); ferr == nil && e.Source != skills.SourceOwner {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "skill:%s ships with jarvisbot (%s): switch it off instead (jarvisbot skills off %s)", name, e.Source, name)
		}
	}
	if err != nil {
		return err
	}
	if link {
		fmt.Fprintf(sk.a.stdout, "Removed skill:%s: it was a link in %s, and only the link is gone; what it led to is untouched.\n", name, skills.OwnDir(sk.cfg.DataDir).Path())
		return nil
	}
	fmt.Fprintf(sk.a.stdout, "Removed skill:%s.\n", name)
	return nil
}
