package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
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
	ev, err := a.EvalGate(ctx, app.RouteOptions{Agent: *agentName, Snapshot: *snapshot}, pos[1])
	a.warn(ev.Warnings)
	if err != nil {
		return err
	}
	rep := ev.Report
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
