package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/channels/console"
	"github.com/jarvisbot/jarvisbot/channels/dispatch"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/scheduler"
	"github.com/jarvisbot/jarvisbot/store"
)

// cmdServe runs the service: every configured channel and the runtime.
// With no bot token it serves the console, so a fresh machine has an
// assistant at once.
func cmdServe(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "serve", "serve [--agent NAME]")
	agentName := fs.String("agent", store.DefaultAgent, "the agent that answers")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	log := a.logger(cfg)
	// Everything is built before anything starts: no approval expires, no
	// turn runs and no report is sent before the desk that carries them
	// exists.
	var desk *dispatch.Desk
	svc, err := a.buildService(ctx, cfg, log, func(ap store.Approval) { desk.Notify(ap) }, func(ap store.Approval) { desk.Continue(ap) })
	if err != nil {
		return err
	}
	defer svc.Close()
	chans, err := a.channels(ctx, cfg)
	if err != nil {
		return err
	}
	desk, err = dispatch.New(ctx, dispatch.Options{
		Runtime: svc.rt, Approvals: svc.engine, Store: svc.db, Owners: ownerIDs(cfg),
		ApprovalChat: cfg.Approvals.Channel, Agent: *agentName, Logger: log,
		Commands: a.chatCommands(svc),
	}, chans...)
	if err != nil {
		return err
	}
	svc.engine.SetApprover(desk.IsOwner)
	jobs, err := scheduledJobs(ctx, cfg, svc.db, a.stderr)
	if err != nil {
		return err
	}
	sch := scheduler.New(scheduler.Options{Store: svc.db, Clock: a.clock, MainChat: mainChat(cfg), Run: skillRunner(svc.rt), Deliver: desk.Report, Logger: log})
	svc.scheduleList = func(ctx context.Context) string {
		var b strings.Builder
		if err := writeSchedule(&b, sch.List(ctx)); err != nil {
			return "The schedule cannot be shown: " + err.Error()
		}
		return b.String()
	}

	// Start: approvals that outlived the last run, messages that waited,
	// the schedule, then the channels.
	if err := svc.resume(ctx); err != nil {
		return err
	}
	if err := desk.Resume(ctx); err != nil {
		return err
	}
	// Requests that outlived the last run keep the prompt the owner has;
	// one that was never drawn is drawn now.
	for _, ap := range svc.pending {
		desk.Redraw(ctx, ap)
	}
	if err := sch.Start(ctx, jobs); err != nil {
		log.Warn("some skills are not scheduled", "err", err)
	}
	if _, err := svc.rt.Model(*agentName); err != nil {
		log.Warn("no model is configured: messages are answered with what to set", "err", err)
	}
	// The channels hear the owner until a signal or until every channel
	// ended (the console at the end of its input).
	recv, stopRecv := context.WithCancel(ctx)
	defer stopRecv()
	ends := make(chan channelEnd, len(chans))
	for _, ch := range chans {
		go func() { ends <- channelEnd{ch, ch.Run(recv, desk)} }()
	}
	running := len(chans) - awaitChannels(ctx, chans, ends, log)
	names := make([]string, 0, len(chans))
	for _, ch := range chans {
		names = append(names, ch.Name())
	}
	log.Info("jarvisbot is ready", "channels", strings.Join(names, ","), "agent", *agentName)
	// The owner can reach jarvisbot now. What can wait comes after: the
	// commands menu and MCP servers (child processes, network; their tools
	// join as each one answers).
	for _, ch := range chans {
		if cm, ok := ch.(channels.Commander); ok {
			if err := cm.SetCommands(ctx, dispatch.Commands); err != nil && ctx.Err() == nil {
				log.Warn("registering commands", "channel", ch.Name(), "err", err)
			}
		}
	}
	svc.connect(svc.work)
	retry := time.NewTicker(30 * time.Second)
	defer retry.Stop()
	for running > 0 && ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case end := <-ends:
			running--
			if end.err != nil {
				log.Error("a channel stopped", "channel", end.ch.Name(), "err", end.err)
			}
		case <-retry.C:
			desk.RetryUndelivered(ctx)
			sch.RetryDeliveries(ctx)
		}
	}
	return shutdown(stopRecv, ends, running, svc, desk, sch, cmp.Or(cfg.ShutdownTimeout, config.DefaultShutdownTimeout), log)
}

// shutdown stops serve in order (X4): the channels stop hearing, waiting
// turns stop waiting for approvals no one can give now, the answers in
// progress get until the deadline to finish (the rest are stopped and
// answered after the next start), scheduled runs end; the caller's
// deferred Close then stops the MCP servers and closes the store, which
// nothing uses any more.
func shutdown(stopRecv context.CancelFunc, ends <-chan channelEnd, running int, svc *service, desk *dispatch.Desk, sch *scheduler.Scheduler, limit time.Duration, log *slog.Logger) error {
	log.Info("stopping: no new messages; answers in progress may finish", "deadline", limit)
	deadline, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	stopRecv()
wait:
	for ; running > 0; running-- {
		select {
		case end := <-ends:
			if end.err != nil {
				log.Error("a channel stopped", "channel", end.ch.Name(), "err", end.err)
			}
		case <-deadline.Done():
			log.Warn("a channel did not stop in time; going on")
			break wait
		}
	}
	svc.engine.Close()
	desk.Drain(deadline)
	sch.Stop(deadline)
	log.Info("stopped")
	return nil
}

// channelWait bounds how long serve waits for its channels to hear the
// owner before it goes on with the work that can wait.
const channelWait = 5 * time.Second

// channelEnd is a channel's Run returning.
type channelEnd struct {
	ch  channels.Channel
	err error
}

// awaitChannels waits until every channel that can tell (channels.Readier)
// hears the owner or has stopped, or channelWait has passed. It returns
// how many channels stopped meanwhile, having logged why.
func awaitChannels(ctx context.Context, chans []channels.Channel, ends <-chan channelEnd, log *slog.Logger) (stopped int) {
	done := make(chan struct{})
	defer close(done)
	ready := make(chan channels.Channel, len(chans))
	waiting := map[channels.Channel]bool{}
	for _, ch := range chans {
		if r, ok := ch.(channels.Readier); ok {
			waiting[ch] = true
			go func() {
				select {
				case <-r.Ready():
					ready <- ch
				case <-done:
				}
			}()
		}
	}
	timeout := time.NewTimer(channelWait)
	defer timeout.Stop()
	for len(waiting) > 0 {
		select {
		case ch := <-ready:
			delete(waiting, ch)
		case end := <-ends:
			stopped++
			delete(waiting, end.ch)
			if end.err != nil {
				log.Error("a channel stopped", "channel", end.ch.Name(), "err", end.err)
			}
		case <-timeout.C:
			for ch := range waiting {
				log.Warn("a channel is not receiving yet; going on", "channel", ch.Name(), "waited", channelWait)
			}
			return stopped
		case <-ctx.Done():
			return stopped
		}
	}
	return stopped
}

// channels builds the configured channels; the console when there is no
// bot token.
func (a *app) channels(ctx context.Context, cfg config.Config) ([]channels.Channel, error) {
	var out []channels.Channel
	extra, err := a.botChannels(ctx, cfg)
	if err != nil {
		return nil, err
	}
	out = append(out, extra...)
	if len(out) == 0 {
		fmt.Fprintln(a.stdout, "jarvisbot: no Telegram or Discord token is set, so I am listening here. Type a message; Ctrl-D ends.")
		out = append(out, console.New(a.stdin, a.stdout))
	}
	return out, nil
}

// ownerIDs are the configured owners as user ids.
func ownerIDs(cfg config.Config) []string {
	var out []string
	for _, o := range cfg.Telegram.Owners {
		out = append(out, "telegram:"+strings.TrimPrefix(o, "telegram:"))
	}
	for _, o := range cfg.Discord.Owners {
		out = append(out, "discord:"+strings.TrimPrefix(o, "discord:"))
	}
	return out
}

// chatCommands answer the slash commands in chat from the running service.
func (a *app) chatCommands(svc *service) map[string]func(ctx context.Context, chat string) string {
	return map[string]func(context.Context, string) string{
		"skills": func(ctx context.Context, _ string) string {
			on := map[string]bool{}
			if err := installedPlugins(ctx, svc.db, on); err != nil {
				return "Skills cannot be read: " + err.Error()
			}
			all, err := gatherSkills(ctx, svc.cfg, svc.db, skillScope{agent: store.DefaultAgent, connected: on}, io.Discard)
			if err != nil {
				return "Skills cannot be read: " + err.Error()
			}
			var b strings.Builder
			for _, e := range all {
				if e.source == sourceManual && !e.on {
					continue
				}
				mark := ""
				if e.skill.Schedule != "" {
					mark = " ⏰ " + e.skill.Schedule
				}
				fmt.Fprintf(&b, "%s — %s%s\n", e.skill.Name, e.state(), mark)
			}
			return b.String()
		},
		"plugins": func(ctx context.Context, _ string) string {
			list, err := svc.db.InstalledPlugins(ctx)
			if err != nil {
				return err.Error()
			}
			if len(list) == 0 {
				return "No plugins installed. Install one with: jarvisbot plugins install NAME"
			}
			var b strings.Builder
			for _, p := range list {
				note := ""
				if p.State == store.PluginNeedsAttention {
					note = " — renew with: jarvisbot plugins signin " + p.Name
				}
				fmt.Fprintf(&b, "%s: %s%s\n", p.Name, p.State, note)
			}
			return b.String()
		},
		"mcp": func(context.Context, string) string {
			st := svc.host.Status()
			if len(st) == 0 {
				return "No MCP servers. Add one with: jarvisbot mcp add NAME -- COMMAND"
			}
			var b strings.Builder
			for _, s := range st {
				fmt.Fprintf(&b, "%s: %s, %d tools", s.Name, s.State, s.Tools)
				if s.Err != nil && s.State != "up" {
					fmt.Fprintf(&b, " (%v)", s.Err)
				}
				b.WriteByte('\n')
			}
			return b.String()
		},
		"agents": func(ctx context.Context, _ string) string {
			list, err := svc.db.Agents(ctx)
			if err != nil {
				return err.Error()
			}
			var b strings.Builder
			for _, ag := range list {
				fmt.Fprintf(&b, "%s — %s\n", ag.Name, ag.Description)
			}
			return b.String()
		},
		"schedule": func(ctx context.Context, _ string) string {
			if svc.scheduleList == nil {
				return "The scheduler is not running."
			}
			return svc.scheduleList(ctx)
		},
		"activity": func(ctx context.Context, _ string) string {
			list, err := svc.db.RecentActivity(ctx, 10)
			if err != nil {
				return err.Error()
			}
			if len(list) == 0 {
				return "Nothing yet."
			}
			var b strings.Builder
			for _, e := range list {
				fmt.Fprintf(&b, "%s %s %s: %s\n", e.At.Local().Format("15:04"), e.Agent, e.Tool, e.Outcome)
			}
			return b.String()
		},
	}
}
