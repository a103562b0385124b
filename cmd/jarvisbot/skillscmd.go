package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/store"
)

const skillsUsage = "skills list [--agent NAME] [--json] | show NAME | on NAME | off NAME | install PATH|URL [--yes] | promote NAME --agent AGENT | remove NAME | forget NAME [WORD]"

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
	case sub == "forget" && (len(pos) == 2 || len(pos) == 3):
	case sub == "forget", sub == "list", sub == "show", sub == "on", sub == "off", sub == "install", sub == "promote", sub == "remove":
		return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot %s", skillsUsage)
	default:
		return jarvisbot.Errorf(jarvisbot.EINVALID, "unknown skills subcommand %q: use %s", sub, skillsUsage)
	}
	in, err := a.OpenInstallation(ctx)
	if err != nil {
		return err
	}
	defer in.Close()
	sk := skillCmd{a: a, in: in, agent: *agent}
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
	case "forget":
		return sk.forget(ctx, pos[1:])
	}
	return sk.remove(ctx, pos[1])
}

// skillCmd prints the skill use cases' results for one agent.
type skillCmd struct {
	a     *cli
	in    *app.Installation
	agent string
}

// warn writes the skill files a use case could not read on stderr.
func (sk skillCmd) warn(w app.Warnings) {
	for _, line := range w {
		fmt.Fprintln(sk.a.Stderr, line)
	}
}

func (sk skillCmd) list(ctx context.Context, asJSON bool) error {
	l, err := sk.in.ListSkills(ctx, sk.agent)
	sk.warn(l.Warnings)
	if err != nil {
		return err
	}
	rows := l.Rows()
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
	fmt.Fprintf(sk.a.stdout, "\n%d skills; %d more are manuals of store plugins you have not installed.\n", len(rows), l.Hidden)
	return nil
}

func (sk skillCmd) show(ctx context.Context, name string) error {
	s, err := sk.in.ShowSkill(ctx, sk.agent, name)
	sk.warn(s.Warnings)
	if err != nil {
		return err
	}
	fmt.Fprint(sk.a.stdout, s.Text())
	if len(s.Learned) > 0 {
		fmt.Fprintf(sk.a.stdout, "\n(jarvisbot skills forget %s [WORD] removes the learned words)\n", s.Skill.Name)
	}
	return nil
}

// forget removes one word learned for a skill, or all of them.
func (sk skillCmd) forget(ctx context.Context, args []string) error {
	word := ""
	if len(args) == 2 {
		word = args[1]
	}
	said, err := sk.in.ForgetLearned(ctx, store.LearnedSkill, args[0], word)
	if err != nil {
		return err
	}
	fmt.Fprintln(sk.a.stdout, said)
	return nil
}

func (sk skillCmd) switchTo(ctx context.Context, name string, on bool) error {
	sw, err := sk.in.SwitchSkill(ctx, sk.agent, name, on)
	sk.warn(sw.Warnings)
	if err != nil {
		return err
	}
	fmt.Fprintln(sk.a.stdout, sw.Note())
	return nil
}

// install imports a SKILL.md written for any app (S6): the owner sees the
// full text, with every control character visible (X2), and what will be
// ignored, and says yes before anything is written.
func (sk skillCmd) install(ctx context.Context, src string, yes bool) error {
	o, err := sk.in.ReadSkill(ctx, src)
	if err != nil {
		return err
	}
	fmt.Fprint(sk.a.stdout, o.View())
	if !yes {
		ok, err := confirm(sk.a, fmt.Sprintf("Install it into %s? [y/N] ", o.Dest), "jarvisbot skills install "+src+" --yes")
		if err != nil || !ok {
			return err
		}
	}
	r, err := sk.in.InstallSkill(ctx, o)
	if err != nil {
		return err
	}
	fmt.Fprintln(sk.a.stdout, r.Note())
	return nil
}

// promote makes an agent's own skill global as a draft, off (S7).
func (sk skillCmd) promote(ctx context.Context, name string) error {
	r, err := sk.in.PromoteSkill(ctx, sk.agent, name)
	if err != nil {
		return err
	}
	fmt.Fprintln(sk.a.stdout, r.Note())
	return nil
}

// remove deletes one of the owner's skills; a shipped skill or a manual
// can only be switched off, and the error says so.
func (sk skillCmd) remove(ctx context.Context, name string) error {
	r, err := sk.in.RemoveSkill(ctx, sk.agent, name)
	sk.warn(r.Warnings)
	if err != nil {
		return err
	}
	fmt.Fprintln(sk.a.stdout, r.Note())
	return nil
}
