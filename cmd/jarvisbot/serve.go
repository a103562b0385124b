package main

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/channels/console"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/scheduler"
	"github.com/jarvisbot/jarvisbot/store"
)

// cmdServe runs the service: every configured channel and the runtime.
// With no bot token it serves the console, so a fresh machine has an
// assistant at once.
func cmdServe(ctx context.Context, a *cli, args []string) error {
	fs := newFlagSet(a, "serve", "serve [--agent NAME]")
	agentName := fs.String("agent", store.DefaultAgent, "the agent that answers")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := a.LoadConfig()
	if err != nil {
		return err
	}
	log := a.Logger(cfg)
	// Replicas on PostgreSQL share their turns, scheduled runs and report
	// deliveries as jobs (ST2); the jobs call into the session built next.
	var s *app.Session
	shared, err := a.OpenShared(ctx, cfg, &s, log)
	if err != nil {
		return err
	}
	opts := app.SessionOptions{Agent: *agentName, ApprovalChat: cfg.Approvals.Channel}
	if shared != nil {
		defer shared.Stop(context.Background()) // after shutdown's own stop, only closes
		opts.Queue = shared
	}
	s, err = a.OpenSession(ctx, cfg, log, opts,
		func(svc *app.Service) ([]channels.Channel, error) { return a.channels(ctx, cfg, svc.DB) })
	if err != nil {
		return err
	}
	s.Shared = shared
	defer s.Close()
	for _, ch := range s.Channels {
		if w, ok := ch.(webhookBot); ok && w.unbound != "" {
			log.Warn(w.unbound)
			s.Ready.NotServed(w.unbound, true)
		}
	}
	// The dashboard's listener opens before anything starts, so that
	// /healthz and /readyz answer during start-up (issue 20, health.go).
	dash, err := a.serveWeb(cfg, s, log)
	if err != nil {
		return err
	}
	defer dash.Close()
	surfSite, err := a.surfaceSite(cfg, s, log)
	if err != nil {
		return err
	}
	if surfSite.ln != nil {
		defer func() { _ = surfSite.ln.Close() }() // when serving never began; closed already after it
	}
	jobs, err := app.ScheduledJobs(ctx, cfg, s.DB, a.Stderr)
	if err != nil {
		return err
	}
	schedOpt := scheduler.Options{Store: s.DB, Clock: a.Clock, Zone: cfg.Location(), MainChat: app.MainChat(cfg), Run: a.SkillRunner(ctx, cfg, s.Service), Deliver: s.Desk.Report, Leases: s.DB, Logger: log}
	if shared != nil {
		schedOpt.Queue = shared
	}
	s.Scheduler = scheduler.New(schedOpt)
	// Start: approvals that outlived the last run, messages that waited,
	// the schedule, then the channels.
	if err := s.Resume(ctx, nil); err != nil {
		return err
	}
	s.Desk.ForgetDeliveries(ctx)
	if err := s.Scheduler.Start(ctx, jobs); err != nil {
		log.Warn("some skills are not scheduled", "err", err)
	}
	if err := s.Service.Jobs.Start(s.Work); err != nil {
		return err
	}
	s.JobsStarted = true
	if shared != nil {
		if err := shared.Start(ctx); err != nil {
			return err
		}
	}
	if _, err := a.ChooseModel(ctx, cfg, *agentName); err != nil {
		log.Warn("no model is configured: messages are answered with what to set", "err", err)
	}
	recv, stopRecv := context.WithCancel(ctx)
	defer stopRecv()
	ends := s.Listen(recv)
	running := len(s.Channels) - app.AwaitChannels(ctx, s.Channels, ends, log)
	names := make([]string, 0, len(s.Channels))
	for _, ch := range s.Channels {
		names = append(names, ch.Name())
	}
	surf := a.serveSurface(cfg, s, surfSite, log)
	defer surf.Close()
	s.Ready.Started.Store(true) // /readyz, and the dashboard's pages
	log.Info("jarvisbot is ready", "channels", strings.Join(names, ","), "agent", *agentName)
	s.AfterReady(ctx)
	return s.Wait(ctx, stopRecv, ends, running, cmp.Or(cfg.ShutdownTimeout, config.DefaultShutdownTimeout), log)
}

// channels builds the configured channels; the console when there is no
// bot token.
func (a *cli) channels(ctx context.Context, cfg config.Config, rs replicaStore) ([]channels.Channel, error) {
	var out []channels.Channel
	extra, err := a.botChannels(ctx, cfg, rs)
	if err != nil {
		return nil, err
	}
	out = append(out, extra...)
	if len(out) == 0 {
		fmt.Fprintln(a.stdout, "jarvisbot: no Telegram or Discord token is set, so I am listening here. Type a message; Ctrl-D ends.")
		out = append(out, console.New(a.stdin, a.stdout, console.Options{}))
	}
	return out, nil
}
