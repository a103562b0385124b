// Package scheduler runs clock-marked skills (SC1, CH3): each run is a
// headless turn of the skill's agent whose report is posted to a chat. A
// run is recorded before it fires, so a restart never repeats one; a run
// still going when the next is due is skipped and recorded; the run's
// outcome and the report's delivery are recorded separately, and a report
// that could not be delivered is retried, never shown as a success.
//
// Catch-up: a time missed while jarvisbot was down is run once at start,
// never as a burst, when it lies within the grace window and after the
// entry was first armed. The store keeps since when each entry is armed on
// its schedule, so a fresh install or a skill added today waits for its
// next time instead of running at once for one that passed before it was
// known. A changed schedule or time zone counts as new, as a new alarm
// time does: the owner who moves the brief from 07:00 to 07:15 at 07:20
// expects it tomorrow at 07:15, not now for a time that never was its
// schedule. A skill switched off and on again is new too.
//
// A run a budget stopped before its model call is recorded as "over
// budget": the owner was offered the budget's buttons already, so it is
// neither a failure nor a report to deliver.
//
// A run that cannot start because no model is configured is recorded as
// not run; the owner is told once in the main chat what to set, and not
// again until a run starts. Such runs are not failures of the skill and
// never count toward the failure alert.
package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/store"
)

// Defaults.
const (
	DefaultGrace      = time.Hour
	DefaultAlertAfter = 3
)

// parser reads 5-field cron specs and descriptors (@daily, @every 2h).
var parser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// Parse checks a schedule and its time zone, with an error that says what
// is wrong.
func Parse(spec, zone string) (cron.Schedule, *time.Location, error) {
	loc := time.Local
	if zone != "" {
		l, err := time.LoadLocation(zone)
		if err != nil {
			return nil, nil, jarvisbot.Errorf(jarvisbot.EINVALID, "time zone %q: use an IANA name such as Europe/Berlin", zone)
		}
		loc = l
	}
	s, err := parser.Parse(strings.TrimSpace(spec))
	if err != nil {
		return nil, nil, jarvisbot.Errorf(jarvisbot.EINVALID, "schedule %q: %v (use 5 cron fields such as \"0 7 * * *\", or @daily, @hourly, @every 2h)", spec, err)
	}
	return s, loc, nil
}

// Entry is one scheduled skill: what runs, when, as which agent, and
// where its report goes.
type Entry struct {
	Skill string // skill name
	Spec  string
	Zone  string // IANA name, "" for the owner's
	Agent string
	Chat  string // where the report goes, "" for the owner's main chat
	// Instructions are the skill's body: the run follows them.
	Instructions string
}

// Runner runs an entry's headless turn and returns its report. When the
// entry's agent has no model, its error wraps ErrNoModel.
type Runner func(ctx context.Context, e Entry, chat string) (string, error)

// ErrNoModel is wrapped by a Runner's error when the entry's agent has no
// model configured: the run is recorded as not run, not as failed.
var ErrNoModel = errors.New("no model is configured")

// ErrOverBudget is wrapped by a Runner's error when a budget stopped the
// run before its model call: the run is recorded as OutcomeOverBudget.
var ErrOverBudget = errors.New("over budget")

// OutcomeOverBudget is the outcome of a run a budget stopped.
const OutcomeOverBudget = "over budget"

// Deliverer posts a report to a chat.
type Deliverer func(ctx context.Context, chat, text string) error

// Options configure a scheduler.
type Options struct {
	Store      store.Schedules
	Clock      clock.Clock
	Run        Runner
	Deliver    Deliverer
	MainChat   string        // the owner's main chat, for reports and alerts
	Grace      time.Duration // catch-up window; 0 means an hour
	AlertAfter int           // consecutive failures before one alert; 0 means 3
	Zone       *time.Location
	// Leases, when several processes share the store (ST2), lets one at a
	// time send undelivered reports again, so none goes out twice; nil
	// for one process. (Runs themselves are claimed once per skill and
	// due time by the store: ClaimRun.)
	Leases jarvisbot.Leases
	// Queue, when replicas share a PostgreSQL store, takes each due run
	// once per skill and due time; the replica that takes it calls
	// RunDue. Nil: this process runs its entries itself.
	Queue  Queue
	Logger *slog.Logger
}

// Queue is the replicas' shared queue (store/sqlstore/replicas).
type Queue interface {
	AddRun(ctx context.Context, skill string, due time.Time) error
	// AddDelivery queues another try of a run's report, once per run.
	AddDelivery(ctx context.Context, run int64) error
}

// leaseDeliveries is the role of the process sending undelivered reports
// again.
const leaseDeliveries = "report-deliveries"

// Scheduler fires entries on their schedules.
type Scheduler struct {
	opt Options
	log *slog.Logger
	// undelivered says a report may be waiting in the store to be sent
	// again; an idle service then does not query the store on every retry.
	undelivered atomic.Bool

	mu      sync.Mutex
	entries map[string]*armed
	stopped bool
	wg      sync.WaitGroup
	ctx     context.Context
	// runs is the context of scheduled runs: Stop ends it when its
	// deadline passes, and the run still going is recorded interrupted.
	runs     context.Context
	stopRuns context.CancelFunc
}

// armed is an entry as the scheduler keeps it: its parsed schedule, its
// timer and whether a run of it is going.
type armed struct {
	entry   Entry
	sched   cron.Schedule
	loc     *time.Location
	stop    func() bool
	running bool
	next    time.Time
}

// New returns a scheduler; Start arms it.
func New(opt Options) *Scheduler {
	if opt.Clock == nil {
		opt.Clock = clock.Real{}
	}
	if opt.Grace <= 0 {
		opt.Grace = DefaultGrace
	}
	if opt.AlertAfter <= 0 {
		opt.AlertAfter = DefaultAlertAfter
	}
	if opt.Zone == nil {
		opt.Zone = time.Local
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Scheduler{opt: opt, log: log, entries: map[string]*armed{}}
	s.runs, s.stopRuns = context.WithCancel(context.Background())
	s.undelivered.Store(true) // the last run may have left some
	return s
}

// Load registers entries without catching up, arming timers or recording
// anything (for a command that lists or runs them by hand). An entry with
// a bad schedule is reported and skipped.
func (s *Scheduler) Load(entries []Entry) error {
	_, err := s.register(context.Background(), entries)
	return err
}

// Start records the entries as armed, catches up what was missed since
// each was armed and within the grace window (once per entry), and arms
// every entry.
func (s *Scheduler) Start(ctx context.Context, entries []Entry) error {
	list, err := s.register(ctx, entries)
	specs := make([]store.ScheduleSpec, 0, len(list))
	for _, e := range list {
		specs = append(specs, store.ScheduleSpec{Skill: e.entry.Skill, Spec: strings.TrimSpace(e.entry.Spec), Zone: e.entry.Zone})
	}
	since, aerr := s.opt.Store.ArmSchedules(ctx, s.opt.Clock.Now(), specs)
	if aerr != nil {
		// Without the record no missed time is known to fall after its
		// entry was armed: nothing is caught up; the entries still run on
		// time.
		s.log.Error("recording the armed schedules failed; no missed run is caught up this time", "err", aerr)
	}
	for _, e := range list {
		if aerr == nil {
			s.catchUp(ctx, e, since[e.entry.Skill])
		}
		s.arm(e)
	}
	return err
}

func (s *Scheduler) register(ctx context.Context, entries []Entry) ([]*armed, error) {
	s.ctx = context.WithoutCancel(ctx)
	var bad []string
	var out []*armed
	for _, en := range entries {
		sc, loc, err := Parse(en.Spec, en.Zone)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", en.Skill, err))
			continue
		}
		if en.Zone == "" {
			loc = s.opt.Zone
		}
		if every, ok := sc.(cron.ConstantDelaySchedule); ok {
			sc = aligned{every.Delay}
		}
		e := &armed{entry: en, sched: sc, loc: loc}
		s.mu.Lock()
		s.entries[en.Skill] = e
		s.mu.Unlock()
		out = append(out, e)
	}
	if len(bad) > 0 {
		return out, jarvisbot.Errorf(jarvisbot.EINVALID, "not scheduled: %s", strings.Join(bad, "; "))
	}
	return out, nil
}

// aligned is "@every D" on times every process computes alike: the
// multiples of D since the zero time, where cron's own schedule counts D
// from each process's start. Replicas then queue the same due times, one
// run each (ST2), and a restart keeps the rhythm.
type aligned struct{ every time.Duration }

func (a aligned) Next(t time.Time) time.Time {
	return t.Truncate(a.every).Add(a.every)
}

// catchUp fires the latest missed run when it is within the grace window,
// after the entry was armed, and was not recorded: one run, however many
// were missed.
func (s *Scheduler) catchUp(ctx context.Context, e *armed, armedAt time.Time) {
	if _, every := e.sched.(aligned); every {
		return // "@every 2h" has no times of day to miss
	}
	now := s.opt.Clock.Now()
	from := now.Add(-s.opt.Grace)
	if armedAt.After(from) {
		from = armedAt
	}
	last, err := s.opt.Store.LastRun(ctx, e.entry.Skill)
	switch {
	case err == nil:
		if last.DueAt.After(from) {
			from = last.DueAt
		}
	case jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND:
		// Unknown is not "never ran": it may have run already.
		s.log.Error("reading the last scheduled run failed; a missed run is not caught up", "skill", e.entry.Skill, "err", err)
		return
	}
	var due time.Time
	for t := e.sched.Next(from.In(e.loc)); !t.After(now); t = e.sched.Next(t) {
		due = t
	}
	if !due.IsZero() {
		s.log.Info("catching up a missed scheduled run", "skill", e.entry.Skill, "due", due)
		s.fire(e, due)
	}
}

func (s *Scheduler) arm(e *armed) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	now := s.opt.Clock.Now()
	next := e.sched.Next(now.In(e.loc))
	e.next = next
	e.stop = s.opt.Clock.AfterFunc(next.Sub(now), func() {
		s.fire(e, next)
		s.arm(e)
	})
}

// Stop disarms every entry and waits for runs in flight until ctx ends;
// then it stops them (each is recorded "interrupted") and waits for them
// to return.
func (s *Scheduler) Stop(ctx context.Context) {
	s.mu.Lock()
	s.stopped = true
	for _, e := range s.entries {
		if e.stop != nil {
			e.stop()
		}
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		s.stopRuns()
		<-done
	}
	s.stopRuns()
}

// Wait waits for the runs in flight (tests).
func (s *Scheduler) Wait() { s.wg.Wait() }

// fire records a run and starts it, unless it ran already (a restart) or
// the previous run is still going (recorded as skipped). With replicas it
// queues the run instead, for one of them to take (RunDue).
func (s *Scheduler) fire(e *armed, due time.Time) {
	if s.opt.Queue != nil {
		if err := s.opt.Queue.AddRun(s.ctx, e.entry.Skill, due); err != nil {
			s.log.Error("queueing a scheduled run failed; another replica may queue it, else it is missed", "skill", e.entry.Skill, "due", due, "err", err)
		}
		return
	}
	run := s.claim(e, due)
	if run == nil {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		run(s.runs)
	}()
}

// RunDue runs a skill's run due at due, on the replica the shared queue
// gave it to (ST2); it returns once the run is done. A skill this
// replica does not know (switched off since) is not run.
func (s *Scheduler) RunDue(ctx context.Context, skill string, due time.Time) error {
	s.mu.Lock()
	e, stopped := s.entries[skill], s.stopped
	if e != nil && !stopped {
		s.wg.Add(1)
	}
	s.mu.Unlock()
	switch {
	case stopped:
		return fmt.Errorf("the scheduler of this replica is stopping; another replica runs %s", skill)
	case e == nil:
		s.log.Info("a queued scheduled run of a skill not scheduled here is dropped", "skill", skill, "due", due)
		return nil
	}
	defer s.wg.Done()
	run := s.claim(e, due)
	if run == nil {
		return nil
	}
	// The run ends at the stop's deadline, as the local ones do, or when
	// the queue stops it.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.runs, cancel)()
	run(ctx)
	return nil
}

// claim records a run due at due and returns what runs it, or nil when
// it does not run: the skill is paused, its previous run is still going
// here (recorded as skipped), or it ran already (a restart, or another
// replica).
func (s *Scheduler) claim(e *armed, due time.Time) func(ctx context.Context) {
	ctx := s.ctx
	st, err := s.opt.Store.ScheduleState(ctx, e.entry.Skill)
	if err != nil {
		// Whether the owner paused it is unknown: it does not run.
		s.log.Error("reading whether a scheduled skill is paused failed; it does not run this time", "skill", e.entry.Skill, "due", due, "err", err)
		return nil
	}
	if st.Paused {
		return nil
	}
	chat := e.entry.Chat
	if chat == "" {
		chat = s.opt.MainChat
	}
	s.mu.Lock()
	busy := e.running
	if !busy {
		e.running = true
	}
	s.mu.Unlock()
	if busy {
		s.log.Warn("scheduled run skipped: the previous one is still going", "skill", e.entry.Skill, "due", due)
		_, err := s.opt.Store.ClaimRun(ctx, store.Run{Skill: e.entry.Skill, DueAt: due, Outcome: "skipped", Chat: chat, Delivery: "none", Error: "the previous run was still going"})
		if err != nil && jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
			s.log.Error("recording a skipped scheduled run failed", "skill", e.entry.Skill, "due", due, "err", err)
		}
		return nil
	}
	id, err := s.opt.Store.ClaimRun(ctx, store.Run{Skill: e.entry.Skill, DueAt: due, StartedAt: s.opt.Clock.Now(), Outcome: "running", Chat: chat})
	if err != nil {
		s.mu.Lock()
		e.running = false
		s.mu.Unlock()
		if jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
			s.log.Error("recording a scheduled run", "skill", e.entry.Skill, "err", err)
		}
		return nil // ECONFLICT: it ran before a restart
	}
	return func(ctx context.Context) {
		defer func() { s.mu.Lock(); e.running = false; s.mu.Unlock() }()
		s.execute(ctx, e.entry, store.Run{ID: id, Skill: e.entry.Skill, DueAt: due, StartedAt: s.opt.Clock.Now(), Chat: chat}, true)
	}
}

// execute runs a claimed run, records its outcome and the skill's state,
// and delivers the report. scheduled is false for a run started by hand,
// whose caller sees a missing model at once: the owner is not told again.
func (s *Scheduler) execute(ctx context.Context, e Entry, run store.Run, scheduled bool) store.Run {
	report, err := s.opt.Run(ctx, e, run.Chat)
	interrupted := err != nil && ctx.Err() != nil
	// What follows records the run: it outlives a stopped run's context.
	ctx = context.WithoutCancel(ctx)
	run.FinishedAt = s.opt.Clock.Now()
	notRun := errors.Is(err, ErrNoModel)
	overBudget := errors.Is(err, ErrOverBudget)
	switch {
	case interrupted:
		// jarvisbot stopped during the run: not the skill's failure.
		run.Outcome, run.Error, run.Delivery = "interrupted", "jarvisbot stopped during the run: "+err.Error(), "none"
		if uerr := s.opt.Store.UpdateRun(ctx, run); uerr != nil {
			s.log.Error("recording an interrupted scheduled run failed", "skill", e.Skill, "due", run.DueAt, "err", uerr)
		}
		return run
	case notRun:
		run.Outcome, run.Error, run.Delivery = "not-run", err.Error(), "none"
	case overBudget:
		run.Outcome, run.Error, run.Delivery = OutcomeOverBudget, err.Error(), "none"
	case err != nil:
		run.Outcome, run.Error = "failed", err.Error()
		run.Report = fmt.Sprintf("The scheduled skill %s failed: %v", e.Skill, err)
	default:
		run.Outcome, run.Report = "ok", report
	}
	// The outcome is stored before the report is sent: a crash while
	// sending leaves a report that is retried, not a run "running" forever.
	if uerr := s.opt.Store.UpdateRun(ctx, run); uerr != nil {
		s.log.Error("recording the outcome of a scheduled run failed", "skill", e.Skill, "due", run.DueAt, "outcome", run.Outcome, "err", uerr)
	}
	var alert, tell bool
	st, serr := s.opt.Store.UpdateScheduleState(ctx, e.Skill, func(st *store.ScheduleState) {
		alert, tell = false, false
		switch {
		case notRun:
			if scheduled && !st.ToldNotRun {
				st.ToldNotRun, tell = true, true
			}
		case overBudget:
			// Not the skill's failure; the streak stays as it was.
		case err != nil:
			st.ToldNotRun = false // the turn started: a model is configured
			st.Failures++
			if st.Failures >= s.opt.AlertAfter && !st.Alerted {
				st.Alerted, alert = true, true
			}
		default:
			st.Failures, st.Alerted, st.ToldNotRun = 0, false, false
		}
	})
	if serr != nil {
		s.log.Error("recording a scheduled skill's failure streak failed", "skill", e.Skill, "outcome", run.Outcome, "err", serr)
	}
	if alert {
		msg := fmt.Sprintf("The scheduled skill %s failed %d times in a row (last: %v). Pause it with jarvisbot schedule pause %s, or look at jarvisbot schedule list.", e.Skill, st.Failures, err, e.Skill)
		s.notify(ctx, e.Skill, "failure alert", msg, func(st *store.ScheduleState) { st.Alerted = false })
	}
	if tell {
		msg := fmt.Sprintf("The scheduled skill %s did not run: %v. It runs at its next time once a model is set; until then this message is not repeated (jarvisbot schedule run %s tries it now).", e.Skill, err, e.Skill)
		s.notify(ctx, e.Skill, "no-model notice", msg, func(st *store.ScheduleState) { st.ToldNotRun = false })
	}
	if !notRun && !overBudget {
		_ = s.deliver(ctx, &run) // recorded and logged; a failure is retried
	}
	return run
}

// notify sends the owner a message about a skill; when it cannot be
// sent, undo takes back the state that says it was, so that the next run
// tries again.
func (s *Scheduler) notify(ctx context.Context, skill, what, msg string, undo func(*store.ScheduleState)) {
	err := s.opt.Deliver(ctx, s.opt.MainChat, msg)
	if err == nil {
		return
	}
	s.log.Error("a scheduled skill's "+what+" could not be delivered; the next run tries again", "skill", skill, "chat", s.opt.MainChat, "err", err)
	if _, uerr := s.opt.Store.UpdateScheduleState(ctx, skill, undo); uerr != nil {
		s.log.Error("recording that the "+what+" was not delivered failed", "skill", skill, "err", uerr)
	}
}

// deliver posts a run's report and records how that went.
func (s *Scheduler) deliver(ctx context.Context, run *store.Run) error {
	run.Attempts++
	err := s.opt.Deliver(ctx, run.Chat, run.Report)
	if err != nil {
		run.Delivery, run.DeliveryError = "failed", err.Error()
		s.undelivered.Store(true)
		s.log.Warn("a scheduled report could not be delivered; it is retried", "skill", run.Skill, "err", err)
	} else {
		run.Delivery, run.DeliveryError = "sent", ""
	}
	if uerr := s.opt.Store.UpdateRun(ctx, *run); uerr != nil {
		// A report sent but not recorded as sent may be sent again.
		s.log.Error("recording the delivery of a scheduled report failed", "skill", run.Skill, "due", run.DueAt, "delivery", run.Delivery, "err", uerr)
	}
	if err != nil && s.opt.Queue != nil {
		if qerr := s.opt.Queue.AddDelivery(ctx, run.ID); qerr != nil {
			s.log.Warn("queueing a report's delivery again failed; it is queued on the next retry round", "skill", run.Skill, "err", qerr)
		}
	}
	return err
}

// RetryDeliveries sends the reports that could not be delivered. It
// looks in the store only when a delivery failed since it last found none
// (or at start). With replicas it queues them, each once (DeliverRun).
func (s *Scheduler) RetryDeliveries(ctx context.Context) {
	// Cleared before the look, so that a failure meanwhile sets it again.
	if !s.undelivered.Swap(false) {
		return
	}
	if s.opt.Leases != nil && s.opt.Queue == nil {
		l, ok, err := s.opt.Leases.TryLead(ctx, leaseDeliveries)
		if err != nil || !ok {
			s.undelivered.Store(true) // another replica sends them now; look again next time
			return
		}
		defer l.Release()
	}
	list, err := s.opt.Store.UndeliveredRuns(ctx)
	if err != nil {
		s.undelivered.Store(true)
		s.log.Error("reading the scheduled reports to send again failed; retried later", "err", err)
		return
	}
	for _, r := range list {
		if s.opt.Queue == nil {
			_ = s.deliver(ctx, &r) // recorded and logged; retried next round
			continue
		}
		// Queued once per run: a queued try of it already keeps it.
		if err := s.opt.Queue.AddDelivery(ctx, r.ID); err != nil {
			s.undelivered.Store(true)
			s.log.Warn("queueing a report's delivery failed; retried later", "skill", r.Skill, "err", err)
		}
	}
}

// Abandoned records the run of skill due at due as interrupted when it
// is still recorded running: the replica running it died, and the shared
// queue tries the due time again (ST2). The run is not started again, since
// part of it may have been done; the record says why it has no report.
func (s *Scheduler) Abandoned(ctx context.Context, skill string, due time.Time) error {
	r, err := s.opt.Store.RunAt(ctx, skill, due)
	if jarvisbot.ErrorCode(err) == jarvisbot.ENOTFOUND {
		return nil // the try ended before it claimed the due time
	}
	if err != nil || r.Outcome != "running" {
		return err
	}
	r.Outcome, r.Error, r.Delivery = "interrupted", "the replica running it stopped before its end", "none"
	r.FinishedAt = s.opt.Clock.Now()
	if err := s.opt.Store.UpdateRun(ctx, r); err != nil {
		return err
	}
	s.log.Warn("a scheduled run was cut off by its replica's end; recorded interrupted", "skill", skill, "due", due)
	return nil
}

// DeliverRun sends a run's report that could not be delivered, on the
// replica the shared queue gave it to (ST2, CH3). Its error makes the
// queue try again later; a report sent meanwhile is not sent again.
func (s *Scheduler) DeliverRun(ctx context.Context, id int64) error {
	list, err := s.opt.Store.UndeliveredRuns(ctx)
	if err != nil {
		return err
	}
	for _, r := range list {
		if r.ID == id {
			return s.deliver(ctx, &r)
		}
	}
	return nil
}

// RunNow runs an entry at once (`schedule run NAME`), waits and returns it.
func (s *Scheduler) RunNow(ctx context.Context, skill string) (store.Run, error) {
	s.mu.Lock()
	e, ok := s.entries[skill]
	s.mu.Unlock()
	if !ok {
		return store.Run{}, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no scheduled skill named %s", skill)
	}
	now := s.opt.Clock.Now()
	chat := e.entry.Chat
	if chat == "" {
		chat = s.opt.MainChat
	}
	var id int64
	var err error
	for try := 0; try < 5; try++ { // a scheduled run may hold this instant
		id, err = s.opt.Store.ClaimRun(ctx, store.Run{Skill: skill, DueAt: now, StartedAt: now, Outcome: "running", Chat: chat})
		if jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
			break
		}
		now = now.Add(time.Millisecond)
	}
	if err != nil {
		return store.Run{}, err
	}
	return s.execute(ctx, e.entry, store.Run{ID: id, Skill: skill, DueAt: now, StartedAt: now, Chat: chat}, false), nil
}

// Status is an entry's schedule for `schedule list`: its next and last
// run, and whether it is paused.
type Status struct {
	Entry  Entry
	Next   time.Time
	Last   *store.Run
	Paused bool
	// Err says what of the entry's state could not be read; Last and
	// Paused are then unknown.
	Err error
}

// List returns every entry with its next and last run.
func (s *Scheduler) List(ctx context.Context) []Status {
	s.mu.Lock()
	var out []Status
	for _, e := range s.entries {
		next := e.next
		if next.IsZero() {
			next = e.sched.Next(s.opt.Clock.Now().In(e.loc))
		}
		out = append(out, Status{Entry: e.entry, Next: next})
	}
	s.mu.Unlock()
	for i := range out {
		r, lerr := s.opt.Store.LastRun(ctx, out[i].Entry.Skill)
		switch {
		case lerr == nil:
			out[i].Last = &r
		case jarvisbot.ErrorCode(lerr) == jarvisbot.ENOTFOUND:
			lerr = nil
		}
		st, serr := s.opt.Store.ScheduleState(ctx, out[i].Entry.Skill)
		out[i].Paused = st.Paused
		out[i].Err = errors.Join(lerr, serr)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Entry.Skill < out[j].Entry.Skill })
	return out
}
