package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/catalog/evalset"
	"github.com/jarvisbot/jarvisbot/store"
)

// cmdEval: jarvisbot eval gate SET.jsonl --catalog SNAPSHOT.json.
func cmdEval(ctx context.Context, a *cli, args []string) error {
	fs := newFlagSet(a, "eval", "eval gate SET.jsonl --catalog SNAPSHOT.json [--agent NAME] [--json]")
	snapshot := fs.String("catalog", "", "catalog snapshot whose MCP servers the set is run against")
	agentName := fs.String("agent", store.DefaultAgent, "the agent whose turns to resolve")
	asJSON := fs.Bool("json", false, "print the figures as one JSON object")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 || pos[0] != "gate" {
		fs.Usage()
		return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot eval gate SET.jsonl --catalog SNAPSHOT.json")
	}
	if *snapshot == "" {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "eval gate needs --catalog SNAPSHOT.json: the MCP servers to route to")
	}
	cases, err := readEvalSet(pos[1])
	if err != nil {
		return err
	}
	p, err := a.PlanRoute(ctx, app.RouteOptions{Agent: *agentName, Snapshot: *snapshot})
	a.warn(p.Warnings)
	if err != nil {
		return err
	}
	rep := evalset.Run(p.Plan, cases, func(msg string) []string {
		_, manuals := p.Skills(msg)
		return manuals
	})
	if !*asJSON {
		rep.Write(a.stdout)
		return nil
	}
	b, err := json.Marshal(rep.Summary())
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(a.stdout, "%s\n", b)
	return err
}

// readEvalSet reads the request set in path.
func readEvalSet(path string) ([]evalset.Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "open request set: %w", err)
	}
	defer f.Close()
	return evalset.Read(f, path)
}
