package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/cliagent"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
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
	view, db, err := a.openWithCatalog(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	spec := agents.Spec{Description: *describe, Allow: *allow, Block: *block, Provider: *prov}
	switch {
	case pos[0] == "add" && len(pos) == 2:
		return addAgent(ctx, a.stdout, db, view, pos[1], spec)
	case pos[0] == "list" && len(pos) == 1:
		return listAgents(ctx, a.stdout, db)
	case pos[0] == "show" && len(pos) == 2:
		ag, err := db.Agent(ctx, pos[1])
		if err != nil {
			return err
		}
		showAgent(a.stdout, ag)
		a.showModel(ctx, ag)
		return nil
	case pos[0] == "edit" && len(pos) == 2:
		return editAgent(ctx, a.stdout, db, view, pos[1], spec)
	case pos[0] == "remove" && len(pos) == 2:
		return removeAgent(ctx, a.stdout, db, pos[1])
	}
	return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot %s", agentsUsage)
}

// addAgent adds an agent (A1), its focus chosen from its description
// (C6), and says what it got: `agents add` and the dashboard.
func addAgent(ctx context.Context, w io.Writer, db store.Agents, f agents.Focuser, name string, spec agents.Spec) error {
	ag, err := agents.Add(ctx, db, f, name, spec)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "Added agent:")
	showAgent(w, ag)
	return nil
}

// editAgent changes what spec sets of an agent and shows it: `agents
// edit` and the dashboard.
func editAgent(ctx context.Context, w io.Writer, db store.Agents, f agents.Focuser, name string, spec agents.Spec) error {
	ag, err := agents.Edit(ctx, db, f, name, spec)
	if err != nil {
		return err
	}
	showAgent(w, ag)
	return nil
}

// removeAgent removes an agent (never the default one): `agents remove`
// and the dashboard.
func removeAgent(ctx context.Context, w io.Writer, db store.Agents, name string) error {
	if err := agents.Remove(ctx, db, name); err != nil {
		return err
	}
	fmt.Fprintf(w, "Removed agent %s.\n", name)
	return nil
}

// openWithCatalog opens the store with the catalog built from it, whose
// view chooses the focus of agents created or described anew (C6).
func (a *cli) openWithCatalog(ctx context.Context) (*catalog.View, *sqlstore.DB, error) {
	cfg, err := a.LoadConfig()
	if err != nil {
		return nil, nil, err
	}
	c, err := app.BuildCatalog(cfg, "")
	if err != nil {
		return nil, nil, err
	}
	view := c.View()
	db, err := a.OpenStoreWith(ctx, cfg, view)
	return view, db, err
}

func listAgents(ctx context.Context, w io.Writer, db store.Agents) error {
	list, err := db.Agents(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for _, ag := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", ag.Name, visible.Line(ag.Description), strings.Join(ag.Focus, ", "))
	}
	return tw.Flush()
}

func showAgent(w io.Writer, ag store.Agent) {
	fmt.Fprintf(w, "%s: %s\n", ag.Name, visible.Line(ag.Description))
	focus := "none (no capability matched the description; name a service to give it one)"
	if len(ag.Focus) > 0 {
		focus = strings.Join(ag.Focus, ", ")
	}
	fmt.Fprintf(w, "  focus: %s\n", focus)
	if len(ag.Allow) > 0 {
		fmt.Fprintf(w, "  allow: %s\n", strings.Join(ag.Allow, ", "))
	}
	if len(ag.Block) > 0 {
		fmt.Fprintf(w, "  block: %s\n", strings.Join(ag.Block, ", "))
	}
	if ag.Provider != "" {
		fmt.Fprintf(w, "  provider: %s\n", ag.Provider)
	}
}

// showModel says what model an agent runs on; for a coding CLI, which one
// it found and its version, or exactly what to install (M5).
func (a *cli) showModel(ctx context.Context, ag store.Agent) {
	cfg, err := a.LoadConfig()
	if err != nil {
		return // the command already read it; nothing new to say
	}
	ch, err := a.ChooseFor(ctx, cfg, ag)
	switch {
	case err != nil:
		fmt.Fprintf(a.stdout, "  model: none yet: %v\n", err)
	case ch.CLI != "":
		cli, err := cliagent.New(cliagent.Options{Kind: ch.CLI, Command: ch.Command, Getenv: a.Getenv, Environ: a.Environ, MCP: app.SessionServer})
		if err == nil {
			var v string
			if v, err = cli.Version(ctx); err == nil {
				fmt.Fprintf(a.stdout, "  model: the %s CLI on your subscription: %s\n", ch.CLI, v)
				return
			}
		}
		fmt.Fprintf(a.stdout, "  model: the %s CLI, not usable yet: %v\n", ch.CLI, err)
	default:
		fmt.Fprintf(a.stdout, "  model: %s %s\n", ch.Config.Provider, ch.Config.Model)
	}
}
