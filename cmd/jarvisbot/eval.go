package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/store"
)

const evalUsage = "eval gate SET.jsonl --catalog SNAPSHOT.json [--agent NAME] [--json]\n" +
	"       jarvisbot eval replay PAIRS.jsonl [MORE.jsonl ...] [--catalog SNAPSHOT.json] [--agent NAME] [--json]"

// cmdEval: jarvisbot eval gate SET.jsonl --catalog SNAPSHOT.json, and
// jarvisbot eval replay PAIRS.jsonl (or eval --replay PAIRS.jsonl).
func cmdEval(ctx context.Context, a *cli, args []string) error {
	fs := newFlagSet(a, "eval", evalUsage)
	snapshot := fs.String("catalog", "", "catalog snapshot whose MCP servers the set is run against (replay: the stored servers when not given)")
	agentName := fs.String("agent", store.DefaultAgent, "the agent whose turns to resolve")
	asJSON := fs.Bool("json", false, "print the figures as one JSON object")
	replay := fs.Bool("replay", false, "replay pairs of requests, as eval replay does")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 && pos[0] == "replay" {
		*replay, pos = true, pos[1:]
	}
	o := app.RouteOptions{Agent: *agentName, Snapshot: *snapshot}
	if *replay {
		if len(pos) == 0 {
			fs.Usage()
			return jarvisbot.Errorf(jarvisbot.EINVALID, "eval replay needs a set of pairs: jarvisbot eval replay PAIRS.jsonl")
		}
		ev, err := a.EvalReplay(ctx, o, pos...)
		a.warn(ev.Warnings)
		if err != nil {
			return err
		}
		return printEval(a, *asJSON, ev.Report, ev.Report.Summary())
	}
	if len(pos) != 2 || pos[0] != "gate" {
		fs.Usage()
		return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot %s", evalUsage)
	}
	if *snapshot == "" {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "eval gate needs --catalog SNAPSHOT.json: the MCP servers to route to")
	}
	ev, err := a.EvalGate(ctx, o, pos[1])
	a.warn(ev.Warnings)
	if err != nil {
		return err
	}
	return printEval(a, *asJSON, ev.Report, ev.Report.Summary())
}

// printEval prints an evaluation: its report for a person, or its
// figures as one line of JSON.
func printEval(a *cli, asJSON bool, rep interface{ Write(io.Writer) }, figures any) error {
	if !asJSON {
		rep.Write(a.stdout)
		return nil
	}
	b, err := json.Marshal(figures)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(a.stdout, "%s\n", b)
	return err
}
