package app

import (
	"context"
	"os"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog/evalset"
)

// GateEval is a request set run against the gate.
type GateEval struct {
	Report evalset.Report
	// Warnings say which skills could not be read, one line each.
	Warnings []string
}

// EvalGate runs the request set in setPath (JSON lines, evalset.Read)
// against the gate of the agent's turns over o's catalog (C5, C7): for
// each request, whether the servers and skill manuals it needs were
// offered, and what the turn cost in tool schemas.
func (a *Env) EvalGate(ctx context.Context, o RouteOptions, setPath string) (GateEval, error) {
	f, err := os.Open(setPath)
	if err != nil {
		return GateEval{}, jarvisbot.Errorf(jarvisbot.EINVALID, "open request set: %w", err)
	}
	cases, err := evalset.Read(f, setPath)
	f.Close()
	if err != nil {
		return GateEval{}, err
	}
	p, err := a.PlanRoute(ctx, o)
	if err != nil {
		return GateEval{Warnings: p.Warnings}, err
	}
	rep := evalset.Run(p.Plan, cases, func(msg string) []string {
		_, manuals := p.Skills(msg)
		return manuals
	})
	return GateEval{Report: rep, Warnings: p.Warnings}, nil
}
