package main

import (
	"bytes"
	"context"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/web"
)

// webSkills is the dashboard's Skills tab over this session: every page
// and change runs the `skills` command's code (skillCmd) on the service's
// store, its words written into a buffer for the page to show.
func (a *cli) webSkills(cfg config.Config, s *app.Session) web.Skills {
	return webSkills{a: a, cfg: cfg, s: s}
}

type webSkills struct {
	a   *cli
	cfg config.Config
	s   *app.Session
}

// cmd is the skills command for agent, writing to out (stdout) and warn
// (stderr) instead of the process's streams.
func (w webSkills) cmd(agent string, out, warn *bytes.Buffer) skillCmd {
	a := *w.a
	a.stdin, a.stdout, a.Stderr = nil, out, warn
	return skillCmd{a: &a, cfg: w.cfg, db: w.s.DB, agent: agent}
}

// run runs one change of the command and returns its words.
func (w webSkills) run(agent string, f func(sk skillCmd) error) (string, error) {
	var out, warn bytes.Buffer
	err := f(w.cmd(agent, &out, &warn))
	return strings.TrimSpace(out.String()), err
}

func (w webSkills) List(ctx context.Context) (web.SkillList, error) {
	var out, warn bytes.Buffer
	shown, hidden, err := w.cmd(store.DefaultAgent, &out, &warn).listed(ctx)
	if err != nil {
		return web.SkillList{}, err
	}
	l := web.SkillList{Hidden: hidden}
	for _, e := range shown {
		if e.Source == skills.SourceAgent {
			continue // listed with its agent, below
		}
		l.Skills = append(l.Skills, skillRowOf(e, ""))
	}
	agents, err := w.s.DB.Agents(ctx)
	if err != nil {
		return web.SkillList{}, err
	}
	for _, ag := range agents {
		all, err := w.cmd(ag.Name, &out, &warn).gather(ctx)
		if err != nil {
			return web.SkillList{}, err
		}
		for _, e := range all {
			if e.Source == skills.SourceAgent {
				l.Agents = append(l.Agents, skillRowOf(e, ag.Name))
			}
		}
	}
	l.Warnings = visible.Text(strings.TrimSpace(warn.String()))
	return l, nil
}

// skillRowOf is one skill as the tab lists it.
func skillRowOf(e skills.Available, agent string) web.SkillRow {
	return web.SkillRow{Name: e.Skill.Name, Description: e.Skill.Description, Source: string(e.Source), Kind: string(e.Skill.Does),
		Plugin: e.Skill.Plugin, Agent: agent, On: e.On, State: e.State(), Schedule: e.Skill.Schedule, Voice: e.Skill.Voice,
		Removable: e.Source == skills.SourceOwner}
}

func (w webSkills) Show(ctx context.Context, agent, name string) (string, error) {
	if agent == "" {
		agent = store.DefaultAgent
	}
	return w.run(agent, func(sk skillCmd) error { return sk.show(ctx, name) })
}

func (w webSkills) Switch(ctx context.Context, name string, on bool) (string, error) {
	return w.run(store.DefaultAgent, func(sk skillCmd) error { return sk.switchTo(ctx, name, on) })
}

// read reads a skill to install as `skills install` does: a URL through
// the same import, an uploaded file with the same checks.
func (w webSkills) read(ctx context.Context, in web.SkillSource) (skills.Incoming, string, error) {
	if in.URL != "" {
		inc, err := skills.ImportFrom(ctx, nil, in.URL)
		return inc, in.URL, err
	}
	src := "an upload to the dashboard"
	if in.FileName != "" {
		src = "the file " + in.FileName + " uploaded to the dashboard"
	}
	inc, err := skills.ImportUpload(in.FileName, []byte(in.Text))
	return inc, src, err
}

func (w webSkills) Read(ctx context.Context, in web.SkillSource) (web.SkillConsent, error) {
	inc, src, err := w.read(ctx, in)
	if err != nil {
		return web.SkillConsent{}, err
	}
	var out, warn bytes.Buffer
	dest, err := w.cmd(store.DefaultAgent, &out, &warn).consent(src, inc)
	if err != nil {
		return web.SkillConsent{}, err
	}
	c := web.SkillConsent{Name: inc.Name, View: out.String(), Dest: dest,
		Source: web.SkillSource{URL: in.URL, FileName: in.FileName, Text: inc.Original}}
	for _, d := range inc.Dropped {
		c.Dropped = append(c.Dropped, visible.Text(d.Field)+": "+d.Reason)
	}
	return c, nil
}

// Install installs exactly the text the owner read: a URL's file is read
// again and must be the same, byte for byte.
func (w webSkills) Install(ctx context.Context, in web.SkillSource) (string, error) {
	shown := in.Text
	inc, src, err := w.read(ctx, in)
	if err != nil {
		return "", err
	}
	if inc.Original != shown {
		return "", errChangedSinceRead(src)
	}
	return w.run(store.DefaultAgent, func(sk skillCmd) error { return sk.installRead(ctx, src, inc) })
}

func (w webSkills) Promote(ctx context.Context, agent, name string) (string, error) {
	return w.run(agent, func(sk skillCmd) error { return sk.promote(ctx, name) })
}

func (w webSkills) Remove(ctx context.Context, name string) (string, error) {
	return w.run(store.DefaultAgent, func(sk skillCmd) error { return sk.remove(ctx, name) })
}

// errChangedSinceRead refuses to install a skill whose text is not the
// one the owner read (X2).
func errChangedSinceRead(src string) error {
	return jarvisbot.Errorf(jarvisbot.ECONFLICT, "the skill at %s is not the text you read (it changed since): nothing was installed; read it again and decide on what it says now", visible.Text(src))
}
