package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/scheduler"
	"github.com/jarvisbot/jarvisbot/store"
)

// scheduledJobs are the enabled skills that carry a schedule. Imported
// skills never do: the importer drops their schedules (S6).
func scheduledJobs(ctx context.Context, cfg config.Config, db interface {
	store.SkillSwitches
	store.Plugins
}, warn io.Writer) ([]scheduler.Job, error) {
	on := map[string]bool{}
	if err := installedPlugins(ctx, db, on); err != nil {
		return nil, err
	}
	// Plugin manuals carry no schedules: the store need not be read.
	list, err := enabledSkills(ctx, cfg, db, skillScope{agent: store.DefaultAgent, connected: on, shop: map[string]shipped{}}, warn)
	if err != nil {
		return nil, err
	}
	var jobs []scheduler.Job
	for _, s := range list {
		if s.Schedule != "" {
			jobs = append(jobs, scheduler.Job{Skill: s.Name, Spec: s.Schedule, Zone: s.TimeZone, Agent: store.DefaultAgent, Chat: s.Chat, Instructions: s.Body})
		}
	}
	return jobs, nil
}

// mainChat is the owner's main chat: the first configured owner's private
// chat, else the console.
func mainChat(cfg config.Config) string {
	if ids := ownerIDs(cfg); len(ids) > 0 {
		return ids[0]
	}
	return "console"
}

// skillRunner runs a scheduled skill as a headless turn of its agent, with
// the skill as its instructions.
func skillRunner(rt *agents.Runtime) scheduler.Runner {
	return func(ctx context.Context, j scheduler.Job, chat string) (string, error) {
		// Asked before the turn, so that a missing model is told apart from
		// a failed turn: the run is then recorded as not run, and the owner
		// told once what to set (SC1).
		if _, err := rt.Model(j.Agent); err != nil {
			return "", fmt.Errorf("%w for agent %s: %w", scheduler.ErrNoModel, j.Agent, err)
		}
		text := fmt.Sprintf("It is time for your scheduled skill %q. Follow its instructions now and write the report for the owner.\n\n%s", j.Skill, strings.TrimSpace(j.Instructions))
		res, err := rt.Turn(ctx, agents.Input{Agent: j.Agent, Chat: chat, Text: text})
		return res.Text, err
	}
}

// cmdSchedule: the scheduled skills (SC1). Only `run` starts the service
// (MCP servers, the runtime); list, pause and resume read and write the
// store.
func cmdSchedule(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "schedule", "schedule list | run NAME | pause NAME | resume NAME")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		pos = []string{"list"}
	}
	switch {
	case pos[0] == "list" && len(pos) == 1, pos[0] == "run" && len(pos) == 2,
		(pos[0] == "pause" || pos[0] == "resume") && len(pos) == 2:
	default:
		return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot schedule list | run NAME | pause NAME | resume NAME")
	}
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	if pos[0] == "run" {
		return runScheduled(ctx, a, cfg, pos[1])
	}
	db, err := a.openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	jobs, err := scheduledJobs(ctx, cfg, db, a.stderr)
	if err != nil {
		return err
	}
	if pos[0] == "list" {
		// Loaded without catching up or arming: the service does that.
		sch := scheduler.New(scheduler.Options{Store: db, Clock: a.clock, MainChat: mainChat(cfg)})
		if err := sch.Load(jobs); err != nil {
			fmt.Fprintln(a.stderr, "jarvisbot:", err)
		}
		return writeSchedule(a.stdout, sch.List(ctx))
	}
	name := pos[1]
	if !slices.ContainsFunc(jobs, func(j scheduler.Job) bool { return j.Skill == name }) {
		names := make([]string, 0, len(jobs))
		for _, j := range jobs {
			names = append(names, j.Skill)
		}
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no scheduled skill named %s (scheduled: %s); jarvisbot schedule list shows them", name, strings.Join(names, ", "))
	}
	pause := pos[0] == "pause"
	if _, err := db.UpdateScheduleState(ctx, name, func(st *store.ScheduleState) { st.Paused = pause }); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%s is %sd.\n", name, pos[0])
	return nil
}

// runScheduled runs one scheduled skill now, its report printed here and
// its ask-tier calls asked at this terminal.
func runScheduled(ctx context.Context, a *app, cfg config.Config, name string) error {
	asked := make(chan store.Approval, 16)
	svc, err := a.startService(ctx, cfg, a.logger(cfg), func(ap store.Approval) {
		if ap.State == store.ApprovalPending {
			asked <- ap
		}
	}, nil)
	if err != nil {
		return err
	}
	defer svc.Close()
	svc.connect(ctx)
	jobs, err := scheduledJobs(ctx, cfg, svc.db, a.stderr)
	if err != nil {
		return err
	}
	sch := scheduler.New(scheduler.Options{Store: svc.db, Clock: a.clock, MainChat: mainChat(cfg), Run: skillRunner(svc.rt), Logger: a.logger(cfg),
		Deliver: func(_ context.Context, chat, text string) error {
			_, err := fmt.Fprintf(a.stdout, "[report for %s]\n%s\n", chat, text)
			return err
		}})
	if err := sch.Load(jobs); err != nil {
		fmt.Fprintln(a.stderr, "jarvisbot:", err)
	}
	defer sch.Stop(context.Background())
	type done struct {
		r   store.Run
		err error
	}
	finished := make(chan done, 1)
	go func() {
		r, err := sch.RunNow(ctx, name)
		finished <- done{r, err}
	}()
	in, lines := stdinLines(ctx, a)
	term := terminal{a: a, svc: svc, in: in, lines: lines, asked: asked}
	var d done
	for wait := true; wait; {
		select {
		case d = <-finished:
			wait = false
		case ap := <-asked:
			term.decide(ctx, ap)
		}
	}
	r, err := d.r, d.err
	switch {
	case err != nil:
		return err
	case r.Outcome == "not-run":
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s did not run: %s", name, r.Error)
	case r.Outcome != "ok":
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "the run failed: %s", r.Error)
	}
	return nil
}

func writeSchedule(w io.Writer, list []scheduler.Entry) error {
	if len(list) == 0 {
		fmt.Fprintln(w, "No scheduled skills. A skill gets a schedule with metadata jarvisbot.schedule, e.g. \"0 7 * * *\".")
		return nil
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "skill\tschedule\tnext\tlast run")
	for _, e := range list {
		next := e.Next.Local().Format("2006-01-02 15:04")
		if e.Paused {
			next = "paused"
		}
		last := "never"
		switch {
		case e.Err != nil:
			next, last = "unknown", "unknown: "+e.Err.Error()
		case e.Last != nil && e.Last.Outcome == "not-run":
			last = fmt.Sprintf("%s not run (%s)", e.Last.DueAt.Local().Format("2006-01-02 15:04"), scheduler.ErrNoModel)
		case e.Last != nil:
			last = fmt.Sprintf("%s %s, report %s", e.Last.DueAt.Local().Format("2006-01-02 15:04"), e.Last.Outcome, e.Last.Delivery)
		}
		spec := e.Job.Spec
		if e.Job.Zone != "" {
			spec += " (" + e.Job.Zone + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Job.Skill, spec, next, last)
	}
	return tw.Flush()
}
