package web

import (
	"context"
	"strings"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// SkillsTab is the Skills tab over an installation (the running
// service's): every page and change is one of app's skill use cases, the
// same `jarvisbot skills` runs, in the same words.
func SkillsTab(in *app.Installation) Skills { return skillsTab{in} }

type skillsTab struct{ in *app.Installation }

func (t skillsTab) List(ctx context.Context) (SkillList, error) {
	all, err := t.in.ListSkills(ctx, store.DefaultAgent)
	warn := all.Warnings
	if err != nil {
		return SkillList{}, err
	}
	l := SkillList{Hidden: all.Hidden}
	for _, e := range all.Skills {
		if e.Source == skills.SourceAgent {
			continue // listed with its agent, below
		}
		l.Skills = append(l.Skills, skillRowOf(e, ""))
	}
	agents, err := t.in.ListAgents(ctx)
	if err != nil {
		return SkillList{}, err
	}
	for _, ag := range agents {
		own, err := t.in.ListSkills(ctx, ag.Name)
		warn = append(warn, own.Warnings...)
		if err != nil {
			return SkillList{}, err
		}
		for _, e := range own.Skills {
			if e.Source == skills.SourceAgent {
				l.Agents = append(l.Agents, skillRowOf(e, ag.Name))
			}
		}
	}
	l.Warnings = visible.Text(strings.TrimSpace(strings.Join(warn, "\n")))
	return l, nil
}

// skillRowOf is one skill as the tab lists it.
func skillRowOf(e skills.Available, agent string) SkillRow {
	return SkillRow{Name: e.Skill.Name, Description: e.Skill.Description, Source: string(e.Source), Kind: string(e.Skill.Does),
		Plugin: e.Skill.Plugin, Agent: agent, On: e.On, State: e.State(), Schedule: e.Skill.Schedule, Voice: e.Skill.Voice,
		Removable: e.Source == skills.SourceOwner}
}

func (t skillsTab) Show(ctx context.Context, agent, name string) (string, error) {
	if agent == "" {
		agent = store.DefaultAgent
	}
	s, err := t.in.ShowSkill(ctx, agent, name)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(s.Text()), nil
}

func (t skillsTab) Learned(ctx context.Context, name string) ([]MCPLearned, error) {
	list, err := t.in.LearnedWords(ctx, store.LearnedSkill, name)
	if err != nil {
		return nil, err
	}
	out := make([]MCPLearned, len(list))
	for i, l := range list {
		out[i] = MCPLearned{Word: l.Label, Note: app.LearnedNote(l, t.in.Config.Location())}
	}
	return out, nil
}

func (t skillsTab) Forget(ctx context.Context, name, word string) (string, error) {
	return t.in.ForgetLearned(ctx, store.LearnedSkill, name, word)
}

func (t skillsTab) Switch(ctx context.Context, name string, on bool) (string, error) {
	sw, err := t.in.SwitchSkill(ctx, store.DefaultAgent, name, on)
	if err != nil {
		return "", err
	}
	return sw.Note(), nil
}

// read reads a skill to install as `skills install` does: a URL through
// the same import, an uploaded file with the same checks.
func (t skillsTab) read(ctx context.Context, in SkillSource) (app.SkillOffer, error) {
	if in.URL != "" {
		return t.in.ReadSkill(ctx, in.URL)
	}
	return t.in.ReadSkillUpload(in.FileName, []byte(in.Text))
}

func (t skillsTab) Read(ctx context.Context, in SkillSource) (SkillConsent, error) {
	o, err := t.read(ctx, in)
	if err != nil {
		return SkillConsent{}, err
	}
	c := SkillConsent{Name: o.Incoming.Name, View: o.View(), Dest: o.Dest,
		Source: SkillSource{URL: in.URL, FileName: in.FileName, Text: o.Incoming.Original}}
	for _, d := range o.Incoming.Dropped {
		c.Dropped = append(c.Dropped, visible.Text(d.Field)+": "+d.Reason)
	}
	return c, nil
}

// Install installs exactly the text the owner read: a URL's file is read
// again and must be the same, byte for byte.
func (t skillsTab) Install(ctx context.Context, in SkillSource) (string, error) {
	o, err := t.read(ctx, in)
	if err != nil {
		return "", err
	}
	r, err := t.in.InstallSkillAsRead(ctx, o, in.Text)
	if err != nil {
		return "", err
	}
	return r.Note(), nil
}

func (t skillsTab) Promote(ctx context.Context, agent, name string) (string, error) {
	r, err := t.in.PromoteSkill(ctx, agent, name)
	if err != nil {
		return "", err
	}
	return r.Note(), nil
}

func (t skillsTab) Remove(ctx context.Context, name string) (string, error) {
	r, err := t.in.RemoveSkill(ctx, store.DefaultAgent, name)
	if err != nil {
		return "", err
	}
	return r.Note(), nil
}
