package main

import (
	"cmp"
	"context"
	"fmt"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/skills"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/channels/console"
	"github.com/jarvisbot/jarvisbot/desk"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/scheduler"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore/replicas"
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
	// Replicas on PostgreSQL share their turns, scheduled runs and report
	// deliveries as jobs (ST2); the jobs call into the session built next.
	var s *session
	shared, err := a.openShared(ctx, cfg, &s, log)
	if err != nil {
		return err
	}
	opts := sessionOptions{agent: *agentName, approvalChat: cfg.Approvals.Channel}
	if shared != nil {
		defer shared.Stop(context.Background()) // after shutdown's own stop, only closes
		opts.queue = shared
	}
	s, err = a.openSession(ctx, cfg, log, opts,
		func(svc *service) ([]channels.Channel, error) { return a.channels(ctx, cfg, svc.db) })
	if err != nil {
		return err
	}
	s.shared = shared
	defer s.Close()
	for _, ch := range s.chans {
		if w, ok := ch.(webhookBot); ok && w.unbound != "" {
			log.Warn(w.unbound)
			s.ready.notServed(w.unbound, true)
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
	jobs, err := scheduledJobs(ctx, cfg, s.db, a.stderr)
	if err != nil {
		return err
	}
	schedOpt := scheduler.Options{Store: s.db, Clock: a.clock, Zone: cfg.Location(), MainChat: mainChat(cfg), Run: a.skillRunner(ctx, cfg, s.service), Deliver: s.desk.Report, Leases: s.db, Logger: log}
	if shared != nil {
		schedOpt.Queue = shared
	}
	s.sched = scheduler.New(schedOpt)
	// Start: approvals that outlived the last run, messages that waited,
	// the schedule, then the channels.
	if err := s.resume(ctx, nil); err != nil {
		return err
	}
	s.desk.ForgetDeliveries(ctx)
	if err := s.sched.Start(ctx, jobs); err != nil {
		log.Warn("some skills are not scheduled", "err", err)
	}
	if err := s.service.jobs.Start(s.work); err != nil {
		return err
	}
	s.jobsStarted = true
	if shared != nil {
		if err := shared.Start(ctx); err != nil {
			return err
		}
	}
	if _, err := a.chooseModel(ctx, cfg, *agentName); err != nil {
		log.Warn("no model is configured: messages are answered with what to set", "err", err)
	}
	recv, stopRecv := context.WithCancel(ctx)
	defer stopRecv()
	ends := s.listen(recv)
	running := len(s.chans) - awaitChannels(ctx, s.chans, ends, log)
	names := make([]string, 0, len(s.chans))
	for _, ch := range s.chans {
		names = append(names, ch.Name())
	}
	surf := a.serveSurface(cfg, s, surfSite, log)
	defer surf.Close()
	s.ready.started.Store(true) // /readyz, and the dashboard's pages
	log.Info("jarvisbot is ready", "channels", strings.Join(names, ","), "agent", *agentName)
	s.afterReady(ctx)
	return s.wait(ctx, stopRecv, ends, running, cmp.Or(cfg.ShutdownTimeout, config.DefaultShutdownTimeout), log)
}

// session is a running service with the dispatcher between it and its
// channels: what serve, chat and schedule run share.
type session struct {
	*service
	desk  *desk.Desk
	chans []channels.Channel
	// shared is the task queue replicas on PostgreSQL share (ST2); nil
	// with SQLite.
	shared *replicas.Queue
	// ready is what /readyz tells (health.go).
	ready readiness
}

// sessionOptions say who answers and where approvals are asked.
type sessionOptions struct {
	agent string
	// approvalChat is where approval buttons go; "" for the chat the
	// request came from.
	approvalChat string
	// queue takes the received messages when replicas share the store.
	queue desk.Queue
}

// openSession builds the service, its channels and the desk that joins
// them. Everything is built before anything starts: no approval expires,
// no turn runs and no report is sent before the desk that carries them
// exists.
func (a *app) openSession(ctx context.Context, cfg config.Config, log *slog.Logger, o sessionOptions, chans func(*service) ([]channels.Channel, error)) (*session, error) {
	s := &session{}
	svc, err := a.buildService(ctx, cfg, log, func(ap store.Approval) {
		s.desk.Notify(ap)
		s.jobs.Approval(ap)
	}, func(ap store.Approval) {
		if !s.jobs.Continue(ap) { // an app's job carries on in the queue
			s.desk.Continue(ap)
		}
	})
	if err != nil {
		return nil, err
	}
	s.service = svc
	if err := svc.loadPause(ctx); err != nil {
		svc.Close()
		return nil, err
	}
	if s.chans, err = chans(svc); err != nil {
		svc.Close()
		return nil, err
	}
	transcribe, speak, noTranscription := a.voiceOf(ctx, cfg, log)
	cmds := svc.commands(a)
	s.pauseCommands(cmds)
	s.desk, err = desk.New(ctx, desk.Options{
		Runtime: svc.rt, Approvals: svc.engine, Store: svc.db, Owners: ownerIDs(cfg),
		ApprovalChat: o.approvalChat, MainChat: mainChat(cfg), Paused: svc.pausedNow, Agent: o.agent, Logger: log,
		Commands:   cmds,
		Transcribe: transcribe, NoTranscription: noTranscription, Speak: speak,
		Leases: svc.db,
		Queue:  o.queue,
		Zone:   cfg.Location(), DashboardURL: dashboardURL(cfg),
		Renew: func(ctx context.Context, plugin string) (string, func(context.Context) error, error) {
			return a.renew(ctx, svc, plugin)
		},
	}, s.chans...)
	if err != nil {
		svc.Close()
		return nil, err
	}
	// The owners decide; so does an app the MCP surface let through (a
	// key of scope full, never on a request of its own): only the
	// surface's backend decides as "app:NAME", and no chat user is named so.
	svc.engine.SetApprover(func(user string) bool { return s.desk.IsOwner(user) || strings.HasPrefix(user, "app:") })
	svc.tell = func(ctx context.Context, plugin string) {
		display := plugin
		if svc.shipped.load() == nil {
			if sp, ok := svc.shipped.shop[plugin]; ok {
				display = sp.Plugin.DisplayName()
			}
		}
		s.desk.NeedsAttention(ctx, mainChat(cfg), plugin, display)
	}
	return s, nil
}

// resume takes up what the last run left: approval requests (those of
// the chats redraw accepts are drawn where the owner answers them; nil
// accepts every chat) and the messages that waited.
func (s *session) resume(ctx context.Context, redraw func(chat string) bool) error {
	if err := s.service.resume(ctx); err != nil {
		return err
	}
	if err := s.desk.Resume(ctx); err != nil {
		return err
	}
	// Requests that outlived the last run keep the prompt the owner has;
	// one that was never drawn is drawn now.
	for _, ap := range s.pending {
		if redraw == nil || redraw(ap.Chat) {
			s.desk.Redraw(ctx, ap)
		}
	}
	return nil
}

// listen runs every channel until ctx ends; each one's end arrives on the
// returned channel.
func (s *session) listen(ctx context.Context) <-chan channelEnd {
	ends := make(chan channelEnd, len(s.chans))
	for _, ch := range s.chans {
		go func() { ends <- channelEnd{ch, ch.Run(ctx, s.desk)} }()
	}
	return ends
}

// afterReady starts what can wait until the owner can reach jarvisbot:
// the commands menu and MCP servers (child processes, network; their
// tools join as each one answers).
func (s *session) afterReady(ctx context.Context) {
	for _, ch := range s.chans {
		if cm, ok := ch.(channels.Commander); ok {
			if err := cm.SetCommands(ctx, desk.Commands); err != nil && ctx.Err() == nil {
				s.log.Warn("registering commands", "channel", ch.Name(), "err", err)
			}
		}
	}
	s.connect(s.work)
}

// wait serves until a signal or until every channel ended (the console at
// the end of its input), sending again from time to time what could not
// be delivered, then stops in order.
func (s *session) wait(ctx context.Context, stopRecv context.CancelFunc, ends <-chan channelEnd, running int, limit time.Duration, log *slog.Logger) error {
	retry := time.NewTicker(30 * time.Second)
	defer retry.Stop()
	// Another replica, or `jarvisbot pause|resume`, may pause or resume.
	pause := time.NewTicker(pauseSyncEvery)
	defer pause.Stop()
	// Deliveries are remembered for days: an hourly prune keeps the
	// table small without adding a write every retry.
	tidy := time.NewTicker(time.Hour)
	defer tidy.Stop()
	for running > 0 && ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case end := <-ends:
			running--
			if end.err != nil {
				log.Error("a channel stopped", "channel", end.ch.Name(), "err", end.err)
			}
		case <-tidy.C:
			s.desk.ForgetDeliveries(ctx)
		case <-pause.C:
			s.syncPause(ctx)
		case <-retry.C:
			s.syncBuiltins(ctx)
			s.desk.RetryUndelivered(ctx)
			if s.sched != nil {
				s.sched.RetryDeliveries(ctx)
			}
		}
	}
	return s.shutdown(stopRecv, ends, running, limit, log)
}

// shutdown stops serve in order (X4): the channels stop hearing, waiting
// turns stop waiting for approvals no one can give now, the answers in
// progress get until the deadline to finish (the rest are stopped and
// answered after the next start), scheduled runs end; the caller's
// deferred Close then stops the MCP servers and closes the store, which
// nothing uses any more.
func (s *session) shutdown(stopRecv context.CancelFunc, ends <-chan channelEnd, running int, limit time.Duration, log *slog.Logger) error {
	s.ready.draining.Store(true) // /readyz: send nothing new here
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
	s.engine.Close()
	if s.shared != nil {
		// No chat is taken up from here; the turns in progress finish by
		// the deadline, or stop for another replica to go on with.
		s.desk.StopTurns()
		s.shared.Stop(deadline)
	}
	s.desk.Drain(deadline)
	if s.sched != nil {
		s.sched.Stop(deadline)
	}
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
func (a *app) channels(ctx context.Context, cfg config.Config, rs replicaStore) ([]channels.Channel, error) {
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

// facts are what the slash commands read from the running service.
func (s *service) facts() desk.Facts {
	return desk.Facts{
		Skills:  s.skillStates,
		Plugins: s.db.InstalledPlugins,
		Servers: func() []desk.ServerState {
			var out []desk.ServerState
			for _, st := range s.host.Status() {
				out = append(out, desk.ServerState{Name: st.Name, State: string(st.State), Tools: st.Tools, Err: st.Err})
			}
			return out
		},
		Agents:   s.db.Agents,
		Activity: s.db.RecentActivity,
		Schedule: func(ctx context.Context) string {
			if s.sched == nil {
				return ""
			}
			var b strings.Builder
			if err := writeSchedule(&b, s.sched.List(ctx)); err != nil {
				return "The schedule cannot be shown: " + err.Error()
			}
			return b.String()
		},
	}
}

// skillStates are the default agent's skills as /skills shows them.
func (s *service) skillStates(ctx context.Context) ([]desk.SkillState, error) {
	on := map[string]bool{}
	if err := collection.AddInstalled(ctx, s.db, on); err != nil {
		return nil, err
	}
	sc, err := skillScope(s.cfg, store.DefaultAgent, on, io.Discard)
	if err != nil {
		return nil, err
	}
	all, err := skills.Gather(ctx, s.db, sc, io.Discard)
	if err != nil {
		return nil, err
	}
	out := make([]desk.SkillState, 0, len(all))
	for _, e := range all {
		out = append(out, desk.SkillState{Name: e.Skill.Name, State: e.State(), Schedule: e.Skill.Schedule, Manual: e.Source == skills.SourceManual, On: e.On})
	}
	return out, nil
}
