package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

const agentsUsage = `agents add NAME --describe "what it is for" [--allow IDS] [--block IDS]
       jarvisbot agents list | show NAME | edit NAME [--describe …] [--allow IDS] [--block IDS] | remove NAME`

// cmdAgents: the owner's agents (A1). Focus (C6) is computed from the
// name and description when an agent is added or described anew.
func cmdAgents(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "agents", agentsUsage)
	describe := fs.String("describe", "", "what the agent is for; its focus is chosen from it")
	allow := fs.String("allow", "", "comma-separated allow-list of capability ids or patterns (mcp:github/*); \"-\" clears it")
	block := fs.String("block", "", "comma-separated block-list; \"-\" clears it")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fs.Usage()
		return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot %s", agentsUsage)
	}
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	c, err := buildCatalog(cfg, "")
	if err != nil {
		return err
	}
	view := c.View()
	db, err := a.openStoreWith(ctx, cfg, view)
	if err != nil {
		return err
	}
	defer db.Close()
	ids := func(s string) []string {
		if s == "-" {
			return []string{}
		}
		var out []string
		for _, p := range strings.Split(s, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out
	}
	show := func(ag store.Agent) {
		fmt.Fprintf(a.stdout, "%s: %s\n", ag.Name, ag.Description)
		focus := "none (no capability matched the description; name a service to give it one)"
		if len(ag.Focus) > 0 {
			focus = strings.Join(ag.Focus, ", ")
		}
		fmt.Fprintf(a.stdout, "  focus: %s\n", focus)
		if len(ag.Allow) > 0 {
			fmt.Fprintf(a.stdout, "  allow: %s\n", strings.Join(ag.Allow, ", "))
		}
		if len(ag.Block) > 0 {
			fmt.Fprintf(a.stdout, "  block: %s\n", strings.Join(ag.Block, ", "))
		}
	}
	switch {
	case pos[0] == "add" && len(pos) == 2:
		if strings.TrimSpace(*describe) == "" {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "describe the agent: jarvisbot agents add %s --describe \"what it is for\"", pos[1])
		}
		ag := store.Agent{Name: pos[1], Description: *describe, Allow: ids(*allow), Block: ids(*block), Focus: view.Focus(pos[1], *describe)}
		if err := db.CreateAgent(ctx, ag); err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, "Added agent:")
		show(ag)
		return nil
	case pos[0] == "list" && len(pos) == 1:
		list, err := db.Agents(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
		for _, ag := range list {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", ag.Name, ag.Description, strings.Join(ag.Focus, ", "))
		}
		return tw.Flush()
	case pos[0] == "show" && len(pos) == 2:
		ag, err := db.Agent(ctx, pos[1])
		if err != nil {
			return err
		}
		show(ag)
		return nil
	case pos[0] == "edit" && len(pos) == 2:
		ag, err := db.Agent(ctx, pos[1])
		if err != nil {
			return err
		}
		if *describe != "" {
			ag.Description, ag.Focus = *describe, view.Focus(ag.Name, *describe)
		}
		if *allow != "" {
			ag.Allow = ids(*allow)
		}
		if *block != "" {
			ag.Block = ids(*block)
		}
		if err := db.UpdateAgent(ctx, ag); err != nil {
			return err
		}
		show(ag)
		return nil
	case pos[0] == "remove" && len(pos) == 2:
		if pos[1] == store.DefaultAgent {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "the default agent cannot be removed; edit it instead")
		}
		if err := db.DeleteAgent(ctx, pos[1]); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "Removed agent %s.\n", pos[1])
		return nil
	}
	return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot %s", agentsUsage)
}
