package app

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app/assembly"
	"github.com/jarvisbot/jarvisbot/app/route"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/catalog/evalset"
	"github.com/jarvisbot/jarvisbot/skills"
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

// ReplayEval is a replay set run against the gate and the skill scorer.
type ReplayEval struct {
	Report evalset.ReplayReport
	// Warnings say which skills could not be read, one line each.
	Warnings []string
}

// EvalReplay replays the pairs and hard negatives of the sets at paths
// (evalset.ReadReplay) over o's catalog for the agent's turns, to measure
// how learning the owner's words (C9) carries to their later requests:
// each first request whose turn did not bring the server or skill it
// wants is recovered to it, as a model that asked for it and used it
// would, and the second requests and the hard negatives are routed
// before and after. Learning happens in memory on a copy: nothing is
// stored, and the words this installation learned are left out, so
// "before" is a gate and scorer that learned nothing.
func (a *Env) EvalReplay(ctx context.Context, o RouteOptions, paths ...string) (ReplayEval, error) {
	pairs, negatives, err := evalset.ReadReplayFiles(paths...)
	if err != nil {
		return ReplayEval{}, err
	}
	if len(pairs) == 0 {
		return ReplayEval{}, jarvisbot.Errorf(jarvisbot.EINVALID, "no pairs to replay in %s: a pair is a line {\"server\" or \"skill\": NAME, \"first\": TEXT, \"second\": TEXT}", strings.Join(paths, ", "))
	}
	cfg, c, db, err := a.routeCatalog(ctx, o)
	if err != nil {
		return ReplayEval{}, err
	}
	defer db.Close()
	for _, s := range c.Servers() {
		c.SetLearned(s.ID, nil)
	}
	v := c.View() // the catalog without the installation's learned words
	var warn bytes.Buffer
	policy, list, err := agentSkills(ctx, cfg, db, v, o.Agent, o.ConnectAll, &warn)
	ev := ReplayEval{Warnings: warningsOf(&warn)}
	if err != nil {
		return ev, err
	}
	ev.Warnings = append(ev.Warnings, evalset.Unknown(pairs, func(t evalset.Target) bool {
		if t.Skill {
			return slices.ContainsFunc(list, func(s *skills.Skill) bool { return s.Name == t.Name })
		}
		_, ok := v.Server(t.Name)
		return ok
	})...)
	r := &replayRouter{cat: c, policy: policy, list: list}
	if r.planner.Prefer, err = assembly.Preferences(ctx, db, v); err != nil {
		return ev, err
	}
	r.planner.Plan = v.Plan(policy)
	if len(list) > 0 {
		r.planner.Ranker = skills.NewRanker(list)
	}
	ev.Report = evalset.Replay(r, pairs, negatives)
	return ev, nil
}

// replayRouter routes a replay as `route` plans a turn: the skills that
// enter it, and the servers offered with the manuals that join.
type replayRouter struct {
	cat     *catalog.Catalog
	policy  catalog.Policy
	list    []*skills.Skill
	learned map[string][]catalog.LearnedWord // by skill
	planner route.Planner
	turn    catalog.Turn
}

func (r *replayRouter) Brings(msg string) []evalset.Target {
	var out []evalset.Target
	ss, manuals := r.planner.Skills(msg)
	for _, s := range ss {
		if e := skills.Entry(s.Entry); e == skills.EntryTakeOver || e == skills.EntryJoin {
			out = append(out, evalset.Target{Skill: true, Name: strings.TrimPrefix(s.ID, "skill:")})
		}
	}
	r.planner.Plan.Turn(msg, &r.turn, manuals...)
	for _, ch := range r.turn.Explain() {
		if ch.Offered {
			out = append(out, evalset.Target{Name: ch.Server})
		}
	}
	return out
}

func (r *replayRouter) Learn(t evalset.Target, words []catalog.LearnedWord) {
	if !t.Skill {
		r.cat.SetLearned(t.Name, words)
		r.planner.Plan = r.cat.View().Plan(r.policy)
		return
	}
	if r.learned == nil {
		r.learned = map[string][]catalog.LearnedWord{}
	}
	r.learned[t.Name] = words
	r.planner.Ranker = skills.NewRanker(skills.WithLearned(r.list, r.learned))
}
