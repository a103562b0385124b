package app

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot/agents/budget"
	"github.com/jarvisbot/jarvisbot/scheduler"
	"github.com/jarvisbot/jarvisbot/skills"

	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/desk"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
	"github.com/jarvisbot/jarvisbot/store/sqlstore/replicas"
)

// Session is a running service with the desk between it and its
// channels: what serve, chat and schedule run share.
type Session struct {
	*Service
	Desk     *desk.Desk
	Channels []channels.Channel
	// Shared is the task queue replicas on PostgreSQL share (ST2); nil
	// with SQLite or when the session does not share.
	Shared *replicas.Queue
	// Ready is what /readyz tells (health.go).
	Ready Readiness
	// Budget checks the budgets before each turn (budget.go).
	Budget *budget.Checker
}

// SessionOptions say who answers and where approvals are asked.
type SessionOptions struct {
	Agent string
	// ApprovalChat is where approval buttons go; "" for the chat the
	// request came from.
	ApprovalChat string
	// Share makes the session take its turns, scheduled runs and report
	// deliveries from the queue replicas share when the store is
	// PostgreSQL (serve does; a one-off chat or run does not).
	Share bool
}

// OpenSession builds the service, its channels and the desk that joins
// them (and the replicas' shared queue, when o.Share and the store is
// PostgreSQL). Everything is built before anything starts: no approval
// expires, no turn runs and no report is sent before the desk that
// carries them exists. The caller closes the session.
func (a *Env) OpenSession(ctx context.Context, cfg config.Config, log *slog.Logger, o SessionOptions, chans func(ReplicaStore) ([]channels.Channel, error)) (*Session, error) {
	s := &Session{}
	var queue desk.Queue
	if o.Share {
		// The shared queue calls into the session, which is complete
		// before the queue starts (Start).
		shared, err := a.openShared(ctx, cfg, s, log)
		if err != nil {
			return nil, err
		}
		if shared != nil {
			s.Shared, queue = shared, shared
		}
	}
	if err := a.buildSession(ctx, cfg, log, o, queue, chans, s); err != nil {
		if s.Shared != nil {
			s.Shared.Stop(context.Background())
		}
		return nil, err
	}
	return s, nil
}

// buildSession fills s: the service, the channels chans makes and the
// desk between them. The channels are made while the catalog is
// assembled, from the store alone.
func (a *Env) buildSession(ctx context.Context, cfg config.Config, log *slog.Logger, o SessionOptions, queue desk.Queue, chans func(ReplicaStore) ([]channels.Channel, error), s *Session) error {
	var chansErr error
	made := make(chan struct{})
	began := false
	svc, err := a.buildService(ctx, cfg, log, func(ap store.Approval) {
		s.Desk.Notify(ap)
		s.Jobs.Approval(ap)
	}, func(ap store.Approval) {
		if !s.Jobs.Continue(ap) { // an app's job carries on in the queue
			s.Desk.Continue(ap)
		}
	}, func(db *sqlstore.DB) {
		began = true
		go func() {
			defer close(made)
			s.Channels, chansErr = chans(db)
		}()
	})
	if began {
		<-made
	}
	if err == nil {
		err = chansErr
		if err != nil {
			svc.Close()
		}
	}
	if err != nil {
		return err
	}
	s.Service = svc
	if err := svc.loadPause(ctx); err != nil {
		svc.Close()
		return err
	}
	transcribe, speak, noTranscription := a.VoiceOf(ctx, cfg, log)
	// Budgets (A5): checked before each turn; the owner is told and
	// offered the buttons in the main chat, through the desk.
	s.Budget = a.NewBudget(cfg, svc.DB, log, sessionNotifier{s, MainChat(cfg)})
	svc.runtime.Budget = s.Budget
	svc.agent = o.Agent
	cmds := svc.commands()
	s.pauseCommands(cmds)
	s.Desk, err = desk.New(ctx, desk.Options{
		Runtime: svc.runtime, Approvals: svc.Approvals, Store: svc.DB, Owners: OwnerIDs(cfg),
		ApprovalChat: o.ApprovalChat, MainChat: MainChat(cfg), Paused: svc.pausedNow, Agent: o.Agent, Logger: log,
		Commands: cmds,
		ArgCommands: map[string]func(ctx context.Context, chat, arg string) string{
			"agent": svc.agentCommand,
		},
		AgentOf:    svc.messageAgent,
		Transcribe: transcribe, NoTranscription: noTranscription, Speak: speak,
		Leases: svc.DB,
		Queue:  queue,
		Zone:   cfg.Location(), DashboardURL: DashboardURL(cfg),
		Budget: s.Budget, Clock: a.Clock,
		Renew: func(ctx context.Context, plugin string) (string, func(context.Context) error, error) {
			return a.Renew(ctx, svc, plugin)
		},
	}, s.Channels...)
	if err != nil {
		svc.Close()
		return err
	}
	// The owners decide; so does an app the MCP surface let through (a
	// key of scope full, never on a request of its own): only the
	// surface's backend decides as "app:NAME", and no chat user is named so.
	svc.Approvals.SetApprover(func(user string) bool { return s.Desk.IsOwner(user) || strings.HasPrefix(user, "app:") })
	svc.tell = func(ctx context.Context, plugin string) {
		display := plugin
		if svc.shipped.load() == nil {
			if sp, ok := svc.shipped.shop[plugin]; ok {
				display = sp.Plugin.DisplayName()
			}
		}
		s.Desk.NeedsAttention(ctx, MainChat(cfg), plugin, display)
	}
	// A fallback provider taking over, and the primary coming back, are
	// the owner's to know, once each, where the scheduled reports go.
	svc.notice = func(ctx context.Context, text string) { s.Desk.Deliver(ctx, MainChat(cfg), text) }
	return nil
}

// Close stops the session's service and then the shared queue, which
// by then only closes (Shutdown stopped its work).
func (s *Session) Close() {
	s.Service.Close()
	if s.Shared != nil {
		s.Shared.Stop(context.Background())
	}
}

// Start takes up what the last run left and starts the work that does
// not wait for a message: approvals that outlived the last run and
// messages that waited, the schedule, the apps' jobs and the replicas'
// shared queue. The channels start with Listen.
func (s *Session) Start(ctx context.Context, agent string) error {
	entries, err := s.scheduledEntries(ctx, s.env.Stderr)
	if err != nil {
		return err
	}
	opt := scheduler.Options{Store: s.DB, Clock: s.env.Clock, Zone: s.Config.Location(), MainChat: MainChat(s.Config),
		Run: s.env.SkillRunner(ctx, s.Config, s.Service), Deliver: s.Desk.Report, Leases: s.DB, Logger: s.log}
	if s.Shared != nil {
		opt.Queue = s.Shared
	}
	s.scheduler = scheduler.New(opt)
	if err := s.Resume(ctx, nil); err != nil {
		return err
	}
	s.Desk.ForgetDeliveries(ctx)
	if err := s.scheduler.Start(ctx, entries); err != nil {
		s.log.Warn("some skills are not scheduled", "err", err)
	}
	if err := s.Jobs.Start(s.work); err != nil {
		return err
	}
	s.jobsStarted = true
	if s.Shared != nil {
		if err := s.Shared.Start(ctx); err != nil {
			return err
		}
	}
	if _, err := s.env.ChooseModel(ctx, s.Config, agent); err != nil {
		s.log.Warn("no model is configured: messages are answered with what to set", "err", err)
	}
	return nil
}

// resume takes up what the last run left: approval requests (those of
// the chats redraw accepts are drawn where the owner answers them; nil
// accepts every chat) and the messages that waited.
func (s *Session) Resume(ctx context.Context, redraw func(chat string) bool) error {
	if err := s.Service.Resume(ctx); err != nil {
		return err
	}
	if err := s.Desk.Resume(ctx); err != nil {
		return err
	}
	// Requests that outlived the last run keep the prompt the owner has;
	// one that was never drawn is drawn now.
	for _, ap := range s.pending {
		if redraw == nil || redraw(ap.Chat) {
			s.Desk.Redraw(ctx, ap)
		}
	}
	return nil
}

// listen runs every channel until ctx ends; each one's end arrives on the
// returned channel.
func (s *Session) Listen(ctx context.Context) <-chan channelEnd {
	ends := make(chan channelEnd, len(s.Channels))
	for _, ch := range s.Channels {
		go func() { ends <- channelEnd{ch, ch.Run(ctx, s.Desk)} }()
	}
	return ends
}

// afterReady starts what can wait until the owner can reach jarvisbot:
// the commands menu, MCP servers (child processes, network; their tools
// join as each one answers) and indexing for search the history stored
// before the index existed (Close stops it; a one-off chat leaves it to
// serve).
func (s *Session) AfterReady(ctx context.Context) {
	s.Spawn(s.indexHistory)
	for _, ch := range s.Channels {
		if cm, ok := ch.(channels.Commander); ok {
			if err := cm.SetCommands(ctx, desk.Commands); err != nil && ctx.Err() == nil {
				s.log.Warn("registering commands", "channel", ch.Name(), "err", err)
			}
		}
	}
	s.Connect(s.work)
}

// wait serves until a signal or until every channel ended (the console at
// the end of its input), sending again from time to time what could not
// be delivered, then stops in order.
func (s *Session) Wait(ctx context.Context, stopRecv context.CancelFunc, ends <-chan channelEnd, running int, limit time.Duration, log *slog.Logger) error {
	retry := time.NewTicker(30 * time.Second)
	defer retry.Stop()
	// Another replica, or `jarvisbot pause|resume`, may pause or resume.
	pause := time.NewTicker(PauseSyncEvery)
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
			s.Desk.ForgetDeliveries(ctx)
		case <-pause.C:
			s.syncPause(ctx)
		case <-retry.C:
			s.SyncBuiltins(ctx)
			s.Desk.RetryUndelivered(ctx)
			if s.scheduler != nil {
				s.scheduler.RetryDeliveries(ctx)
			}
		}
	}
	return s.Shutdown(stopRecv, ends, running, limit, log)
}

// shutdown stops serve in order (X4): the channels stop hearing, waiting
// turns stop waiting for approvals no one can give now, the answers in
// progress get until the deadline to finish (the rest are stopped and
// answered after the next start), scheduled runs end; the caller's
// deferred Close then stops the MCP servers and closes the store, which
// nothing uses any more.
func (s *Session) Shutdown(stopRecv context.CancelFunc, ends <-chan channelEnd, running int, limit time.Duration, log *slog.Logger) error {
	s.Ready.draining.Store(true) // /readyz: send nothing new here
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
	s.Approvals.Close()
	if s.Shared != nil {
		// No chat is taken up from here; the turns in progress finish by
		// the deadline, or stop for another replica to go on with.
		s.Desk.StopTurns()
		s.Shared.Stop(deadline)
	}
	s.Desk.Drain(deadline)
	if s.scheduler != nil {
		s.scheduler.Stop(deadline)
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
func AwaitChannels(ctx context.Context, chans []channels.Channel, ends <-chan channelEnd, log *slog.Logger) (stopped int) {
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

// OwnerIDs are the configured owners as user ids.
func OwnerIDs(cfg config.Config) []string {
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
func (s *Service) facts() desk.Facts {
	return desk.Facts{
		Skills:  s.skillStates,
		Plugins: s.DB.InstalledPlugins,
		Servers: func() []desk.ServerState {
			var out []desk.ServerState
			for _, st := range s.Host.Status() {
				out = append(out, desk.ServerState{Name: st.Name, State: string(st.State), Tools: st.Tools, Err: st.Err})
			}
			return out
		},
		Agents:   s.DB.Agents,
		Activity: s.DB.RecentActivity,
		Schedule: func(ctx context.Context) string {
			if s.scheduler == nil {
				return ""
			}
			var b strings.Builder
			if err := WriteSchedule(&b, s.scheduler.List(ctx)); err != nil {
				return "The schedule cannot be shown: " + err.Error()
			}
			return b.String()
		},
	}
}

// skillStates are the default agent's skills as /skills shows them.
func (s *Service) skillStates(ctx context.Context) ([]desk.SkillState, error) {
	all, _, err := s.Installation().gatherSkills(ctx, store.DefaultAgent)
	if err != nil {
		return nil, err
	}
	out := make([]desk.SkillState, 0, len(all))
	for _, e := range all {
		out = append(out, desk.SkillState{Name: e.Skill.Name, State: e.State(), Schedule: e.Skill.Schedule, Manual: e.Source == skills.SourceManual, On: e.On})
	}
	return out, nil
}
