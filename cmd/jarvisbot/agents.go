package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/visible"
)

const agentsUsage = `agents add NAME --describe "what it is for" [--allow IDS] [--block IDS] [--provider claude-code|codex|anthropic|openai]
       jarvisbot agents list | show NAME | edit NAME [--describe …] [--allow IDS] [--block IDS] [--provider P|-] | remove NAME`

// cmdAgents: the owner's agents (A1). Focus (C6) is computed from the
// name and description when an agent is added or described anew.
func cmdAgents(ctx context.Context, a *cli, args []string) error {
	fs := newFlagSet(a, "agents", agentsUsage)
	describe := fs.String("describe", "", "what the agent is for; its focus is chosen from it")
	allow := fs.String("allow", "", "comma-separated allow-list of capability ids or patterns (mcp:github/*); \"-\" clears it")
	block := fs.String("block", "", "comma-separated block-list; \"-\" clears it")
	prov := fs.String("provider", "", "the agent's model: claude-code or codex (the CLI on your subscription), anthropic or openai; \"-\" for the installation's")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fs.Usage()
		return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot %s", agentsUsage)
	}
	in, err := a.OpenInstallation(ctx)
	if err != nil {
		return err
	}
	defer in.Close()
	spec := agents.Spec{Description: *describe, Allow: *allow, Block: *block, Provider: *prov}
	name := ""
	if len(pos) == 2 {
		name = pos[1]
	}
	switch {
	case pos[0] == "add" && len(pos) == 2:
		return a.printNote(noted(in.AddAgent(ctx, name, spec)))
	case pos[0] == "list" && len(pos) == 1:
		return listAgents(ctx, a, in)
	case pos[0] == "show" && len(pos) == 2:
		return showAgent(ctx, a, in, name)
	case pos[0] == "edit" && len(pos) == 2:
		return a.printNote(noted(in.EditAgent(ctx, name, spec)))
	case pos[0] == "remove" && len(pos) == 2:
		return a.printNote(noted(in.RemoveAgent(ctx, name)))
	}
	return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot %s", agentsUsage)
}

// noter is a use case's result that says what it did.
type noter interface{ Note() string }

// noted is a result's note, or the use case's error.
func noted[R noter](r R, err error) (string, error) {
	if err != nil {
		return "", err
	}
	return r.Note(), nil
}

// printNote prints what a change did, or returns why it failed.
func (a *cli) printNote(note string, err error) error {
	if err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, note)
	return nil
}

func listAgents(ctx context.Context, a *cli, in *app.Installation) error {
	list, err := in.ListAgents(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	for _, ag := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", ag.Name, visible.Line(ag.Description), strings.Join(ag.Focus, ", "))
	}
	return tw.Flush()
}

// showAgent prints an agent and what model it runs on; for a coding CLI,
// which one it found and its version, or exactly what to install (M5).
func showAgent(ctx context.Context, a *cli, in *app.Installation, name string) error {
	ag, err := in.ShowAgent(ctx, name)
	if err != nil {
		return err
	}
	fmt.Fprint(a.stdout, app.DescribeAgent(ag))
	missing, err := in.FocusPlugins(ctx, ag)
	if err != nil {
		return err
	}
	for _, p := range missing {
		fmt.Fprintf(a.stdout, "  %s\n", p.Line())
	}
	switch m := in.ModelOf(ctx, ag); {
	case m.CLI != "" && m.Err == nil:
		fmt.Fprintf(a.stdout, "  model: the %s CLI on your subscription: %s\n", m.CLI, m.Version)
	case m.CLI != "":
		fmt.Fprintf(a.stdout, "  model: the %s CLI, not usable yet: %v\n", m.CLI, m.Err)
	case m.Err != nil:
		fmt.Fprintf(a.stdout, "  model: none yet: %v\n", m.Err)
	case len(m.Fallbacks) > 0:
		fmt.Fprintf(a.stdout, "  model: %s %s, then %s if it fails\n", m.Provider, m.Model, strings.Join(m.Fallbacks, ", then "))
	default:
		fmt.Fprintf(a.stdout, "  model: %s %s\n", m.Provider, m.Model)
	}
	return nil
}
