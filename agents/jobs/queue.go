// Package jobs runs the work apps post over MCP (M4): a job names no
// agent, so the Chooser picks one with no model call (choose.go), the
// store keeps it, and the Queue's runner runs it as one turn of that agent
// in the job's own chat. An agent_chat turn is a job pinned to its agent,
// in the agent's chat with the app.
//
// Data flows Post → store (queued) → runner (running, one turn) → store
// (done with the reply, or failed with the error). While the turn waits
// for the owner's approval the job is waiting_approval with the request's
// id; nothing here decides approvals: the turn runs under the agent's own
// tiers and the owner's buttons decide, as for any chat.
package jobs

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/names"
	"github.com/jarvisbot/jarvisbot/store"
)

// Turner runs one turn of an agent (agents.Runtime).
type Turner interface {
	Turn(ctx context.Context, in agents.Input) (agents.Result, error)
}

// Continuer resumes a turn whose approval was decided while no turn
// waited for it, after a restart (agents.Runtime).
type Continuer interface {
	Continue(ctx context.Context, a store.Approval) (agents.Result, error)
}

// Approvals lists the approval requests of a chat that wait for the owner
// (approvals.Engine).
type Approvals interface {
	PendingIn(ctx context.Context, chat string) ([]store.Approval, error)
}

// Choosing picks the agent for a job's text (Chooser).
type Choosing interface {
	Choose(ctx context.Context, text string) (Choice, error)
}

// Options configure a Queue.
type Options struct {
	Store store.Jobs
	// Turner runs the turns; when it is also a Continuer (agents.Runtime
	// is), a job whose approval is decided after a restart goes on
	// (Continue).
	Turner  Turner
	Chooser Choosing
	Clock   clock.Clock // nil means the wall clock
	Logger  *slog.Logger
	// Paused, when set and true, keeps every job from starting; queued
	// ones wait until Resume is called.
	Paused func(ctx context.Context) bool
	// Approvals tells which approval a running job's turn waits for.
	Approvals Approvals
	// Workers is how many jobs run at once (default 3); an agent runs one
	// job at a time.
	Workers int
	// PollEvery is how often a running job's chat is checked for a
	// pending approval when Approval is not called (default 2 s).
	PollEvery time.Duration
}

// Queue runs jobs. It is safe for concurrent use.
type Queue struct {
	opt Options

	base context.Context // ends when Start's context does
	stop context.CancelFunc
	wg   sync.WaitGroup
	done chan struct{}

	mu      sync.Mutex
	running map[string]*run // by job id
	busy    map[string]int  // jobs running by agent
	changed chan struct{}   // closed and replaced at each change of a job
	asked   chan struct{}   // closed and replaced at each Approval call
	wake    chan struct{}   // 1-buffered: the runner looks for work
	started bool
	stopped bool // Done waits for the turns: no new one starts
}

// run is a job whose turn runs now.
type run struct {
	cancel    context.CancelFunc
	cancelled bool // by Cancel, not by the service stopping
}

// ChatPrefix and AppChatPrefix start the chats jobs' turns run in: a
// posted job's own chat is "job:ID", an agent's conversation with an app
// (agent_chat) "app:APP:AGENT". Decisions on approvals raised in these
// chats are the queue's to carry on (Continue).
const (
	ChatPrefix    = "job:"
	AppChatPrefix = "app:"
)

// AppChat is the chat of an agent's conversation with an app: its own per
// agent, so chat_history shows one agent's conversation with the app.
func AppChat(app, agent string) string { return AppChatPrefix + app + ":" + agent }

// AppOf returns the app whose request a chat's turns answer: the app that
// posted the job of a "job:ID" chat, or APP of "app:APP:AGENT"; "" for any
// other chat (the owner's own). No app resolves an approval its own
// request raised (M4).
func (q *Queue) AppOf(ctx context.Context, chat string) (string, error) {
	if id, ok := strings.CutPrefix(chat, ChatPrefix); ok {
		j, err := q.opt.Store.Job(ctx, id)
		return j.App, err
	}
	if rest, ok := strings.CutPrefix(chat, AppChatPrefix); ok {
		// Agent names hold no ':', so the last one ends the app's name.
		if i := strings.LastIndexByte(rest, ':'); i > 0 {
			return rest[:i], nil
		}
	}
	return "", nil
}

// New returns a queue; Start runs it.
func New(opt Options) *Queue {
	if opt.Clock == nil {
		opt.Clock = clock.Real{}
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.Workers <= 0 {
		opt.Workers = 3
	}
	if opt.PollEvery <= 0 {
		opt.PollEvery = 2 * time.Second
	}
	q := &Queue{opt: opt, running: map[string]*run{}, busy: map[string]int{},
		changed: make(chan struct{}), asked: make(chan struct{}), wake: make(chan struct{}, 1), done: make(chan struct{})}
	q.base, q.stop = context.WithCancel(context.Background())
	return q
}

// Post stores a job an app posted, with the agent the Chooser picked and
// why; the runner starts it when a worker and its agent are free.
func (q *Queue) Post(ctx context.Context, app, title, text string) (store.Job, error) {
	if strings.TrimSpace(text) == "" {
		return store.Job{}, jarvisbot.Errorf(jarvisbot.EINVALID, "the job has no text: say what should be done")
	}
	c, err := q.opt.Chooser.Choose(ctx, text)
	if err != nil {
		return store.Job{}, err
	}
	return q.add(ctx, store.Job{App: app, Title: title, Text: text, Agent: c.Agent, Why: c.Why})
}

func (q *Queue) add(ctx context.Context, j store.Job) (store.Job, error) {
	j, err := q.opt.Store.AddJob(ctx, j)
	if err != nil {
		return j, err
	}
	q.opt.Logger.Info("job posted", "job", j.ID, "app", j.App, "agent", j.Agent, "why", j.Why)
	q.changedNow()
	q.kick()
	return j, nil
}

// Chat runs one turn of agent for app (agent_chat) as a job pinned to the
// agent, in the agent's chat with the app (AppChat), and waits up to
// timeout: the job returned is done or failed (answered), waiting_approval
// (with the request's id), or queued or running (still running: the app
// follows it by its id).
func (q *Queue) Chat(ctx context.Context, app, agent, text string, timeout time.Duration) (store.Job, error) {
	if err := names.ValidAgent(agent); err != nil {
		return store.Job{}, err
	}
	if strings.TrimSpace(text) == "" {
		return store.Job{}, jarvisbot.Errorf(jarvisbot.EINVALID, "the message to %s is empty: say what you want of it", agent)
	}
	j, err := q.add(ctx, store.Job{App: app, Text: text, Agent: agent, Why: "asked for by name (agent_chat)", Chat: AppChat(app, agent)})
	if err != nil {
		return j, err
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	got, err := q.Wait(wctx, j.ID)
	if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return q.opt.Store.Job(ctx, j.ID) // still running when the time was up
	}
	return got, err
}

// Wait returns the job once it is done, failed or cancelled, or waits for
// the owner's approval; or the job as it stands with ctx's error.
func (q *Queue) Wait(ctx context.Context, id string) (store.Job, error) {
	for {
		changed := q.changes()
		j, err := q.opt.Store.Job(ctx, id)
		if err != nil {
			return j, err
		}
		if j.State.Finished() || j.State == store.JobWaitingApproval {
			return j, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return j, ctx.Err()
		}
	}
}

// Cancel stops a job: a queued one at once, a running one by cancelling
// its turn. A finished job is ECONFLICT.
func (q *Queue) Cancel(ctx context.Context, id string) (store.Job, error) {
	j, err := q.opt.Store.UpdateJob(ctx, id, func(j *store.Job) error {
		if j.State.Finished() {
			return jarvisbot.Errorf(jarvisbot.ECONFLICT, "job %s is %s already: there is nothing to cancel", j.ID, j.State)
		}
		j.State, j.FinishedAt = store.JobCancelled, q.opt.Clock.Now()
		return nil
	})
	if err != nil {
		return j, err
	}
	// A run claimed before the change finds the job cancelled when it
	// starts (exec); one started is cancelled here.
	q.mu.Lock()
	if r, ok := q.running[id]; ok {
		r.cancelled = true
		r.cancel()
	}
	q.changedLocked()
	q.mu.Unlock()
	q.opt.Logger.Info("job cancelled", "job", id)
	return j, nil
}

// Retry queues a failed or cancelled job again, for a new attempt; its
// turn goes on from what the last attempt stored (agents.Input.Retry).
func (q *Queue) Retry(ctx context.Context, id string) (store.Job, error) {
	q.mu.Lock()
	_, live := q.running[id]
	q.mu.Unlock()
	j, err := q.opt.Store.UpdateJob(ctx, id, func(j *store.Job) error {
		if j.State != store.JobFailed && j.State != store.JobCancelled {
			return jarvisbot.Errorf(jarvisbot.ECONFLICT, "job %s is %s: only a failed or cancelled job can be retried", j.ID, j.State)
		}
		if live {
			return jarvisbot.Errorf(jarvisbot.ECONFLICT, "job %s was cancelled and its turn is still stopping: retry it in a moment", j.ID)
		}
		j.State, j.Error, j.Result, j.Approval, j.FinishedAt = store.JobQueued, "", "", "", time.Time{}
		return nil
	})
	if err != nil {
		return j, err
	}
	q.changedNow()
	q.kick()
	return j, nil
}

// Resume wakes the runner after a pause: queued jobs start again.
func (q *Queue) Resume() { q.kick() }

// Approval tells the queue of an approval request or decision (hook it to
// approvals.Options.Notify): a job whose turn it belongs to is marked at
// once instead of at the next poll. It does not block.
func (q *Queue) Approval(store.Approval) {
	q.mu.Lock()
	close(q.asked)
	q.asked = make(chan struct{})
	q.mu.Unlock()
}

// Owns reports whether a chat is one whose turns the queue runs.
func Owns(chat string) bool {
	return strings.HasPrefix(chat, ChatPrefix) || strings.HasPrefix(chat, AppChatPrefix)
}

// Continue carries on a job whose approval the owner decided while no turn
// waited for it (after a restart): hook it to approvals.Options.Orphan
// before the dispatcher, which takes the decisions it returns false for.
// It does not block.
func (q *Queue) Continue(a store.Approval) bool {
	if !Owns(a.Chat) {
		return false
	}
	c, ok := q.opt.Turner.(Continuer)
	if !ok {
		return false
	}
	// Added under the lock that Done's wait takes first, so that no turn
	// starts once the queue waits for its turns to end.
	q.mu.Lock()
	stopped := q.stopped
	if !stopped {
		q.wg.Add(1)
	}
	q.mu.Unlock()
	if stopped {
		q.opt.Logger.Warn("an approval was decided while the job queue stops; its job is picked up at the next start", "approval", a.ID, "chat", a.Chat)
		return true
	}
	go func() {
		defer q.wg.Done()
		ctx := q.base
		list, err := q.opt.Store.UnfinishedJobs(ctx)
		switch {
		case err != nil && q.base.Err() != nil:
			q.opt.Logger.Info("an approval was decided while the job queue stops; its job is picked up at the next start", "approval", a.ID, "chat", a.Chat)
			return
		case err != nil:
			q.opt.Logger.Error("a decided approval's job could not be found; it stays waiting", "approval", a.ID, "chat", a.Chat, "err", err)
			return
		}
		// Waiting, or left running by a stop and not picked up yet: the
		// decision may come before Start (the engine's Resume expires
		// requests whose time ran out while jarvisbot was down).
		i := slices.IndexFunc(list, func(j store.Job) bool {
			return j.Chat == a.Chat && (j.State == store.JobWaitingApproval || j.State == store.JobRunning)
		})
		if i < 0 {
			q.opt.Logger.Warn("an approval was decided for a job chat with no job waiting", "approval", a.ID, "chat", a.Chat)
			return
		}
		ctx, r, ok := q.claim(list[i], false)
		if !ok {
			return // its turn runs already
		}
		q.exec(ctx, r, list[i], func(ctx context.Context) (agents.Result, error) { return c.Continue(ctx, a) })
	}()
	return true
}

// Start puts jobs a stop left running back in line and starts the runner,
// which stops when ctx ends (Done). A job whose turn had an approval
// pending stays waiting_approval: the request carries its turn, and the
// owner's decision continues it (Continue); any other goes back to queued,
// and its turn goes on from what it stored. Call it before the channels
// start; a decision that comes before it (the approvals engine's Resume
// expires requests whose time ran out while jarvisbot was down) reaches
// its job through Continue all the same.
func (q *Queue) Start(ctx context.Context) error {
	q.mu.Lock()
	if q.started {
		q.mu.Unlock()
		return jarvisbot.Errorf(jarvisbot.ECONFLICT, "the job queue is started already")
	}
	q.started = true
	q.mu.Unlock()
	if err := q.recover(ctx); err != nil {
		return err
	}
	go func() {
		select {
		case <-ctx.Done():
		case <-q.base.Done():
		}
		q.stop()
	}()
	q.wg.Add(1)
	go q.runner()
	go func() {
		<-q.base.Done()
		q.mu.Lock()
		q.stopped = true
		q.mu.Unlock()
		q.wg.Wait()
		close(q.done)
	}()
	q.kick()
	return nil
}

// Done is closed once the runner and every turn it started have returned
// after Start's context ended.
func (q *Queue) Done() <-chan struct{} { return q.done }

func (q *Queue) recover(ctx context.Context) error {
	list, err := q.opt.Store.UnfinishedJobs(ctx)
	if err != nil {
		return err
	}
	for _, j := range list {
		if j.State == store.JobQueued {
			continue
		}
		pending, err := q.pendingIn(ctx, j.Chat)
		if err != nil {
			return err
		}
		if _, err := q.opt.Store.UpdateJob(ctx, j.ID, func(j *store.Job) error {
			q.mu.Lock()
			_, live := q.running[j.ID] // Continue took it up already
			q.mu.Unlock()
			if live || j.State.Finished() {
				return nil
			}
			if len(pending) > 0 {
				j.State, j.Approval = store.JobWaitingApproval, pending[0].ID
			} else {
				j.State, j.Approval = store.JobQueued, ""
			}
			return nil
		}); err != nil {
			return err
		}
		q.opt.Logger.Info("job picked up after a restart", "job", j.ID, "waiting_approval", len(pending) > 0)
	}
	return nil
}

func (q *Queue) pendingIn(ctx context.Context, chat string) ([]store.Approval, error) {
	if q.opt.Approvals == nil {
		return nil, nil
	}
	return q.opt.Approvals.PendingIn(ctx, chat)
}

// runner starts queued jobs while not paused, when woken.
func (q *Queue) runner() {
	defer q.wg.Done()
	for {
		q.startQueued()
		select {
		case <-q.base.Done():
			return
		case <-q.wake:
		}
	}
}

func (q *Queue) paused() bool { return q.opt.Paused != nil && q.opt.Paused(q.base) }

// startQueued starts the oldest queued jobs whose agent is free, while
// workers are.
func (q *Queue) startQueued() {
	if q.base.Err() != nil {
		return // the queue stops: nothing more starts
	}
	list, err := q.opt.Store.UnfinishedJobs(q.base)
	if err != nil {
		// A read cut by the stop is the stop, not a failure (X4).
		if q.base.Err() == nil {
			q.opt.Logger.Error("reading the queued jobs; trying again at the next change", "err", err)
		}
		return
	}
	for _, j := range list {
		if j.State != store.JobQueued {
			continue
		}
		// Asked again for each job: a pause that came while the list was
		// read holds back what the list holds.
		if q.paused() {
			return
		}
		ctx, r, ok := q.claim(j, true)
		if !ok {
			continue
		}
		retry := !j.StartedAt.IsZero() || j.Chat == ChatPrefix+j.ID
		in := agents.Input{Agent: j.Agent, Chat: j.Chat, Text: j.Text, Retry: retry, App: j.App}
		q.wg.Add(1)
		go func() {
			defer q.wg.Done()
			q.exec(ctx, r, j, func(ctx context.Context) (agents.Result, error) { return q.opt.Turner.Turn(ctx, in) })
		}()
	}
}

// claim registers a job's run before it starts, holding its agent (and a
// worker, when limit is set) from now, so the runner starts no other job
// of the agent and no more jobs than workers.
func (q *Queue) claim(j store.Job, limit bool) (context.Context, *run, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.running[j.ID]; ok || limit && (q.busy[j.Agent] > 0 || len(q.running) >= q.opt.Workers) {
		return nil, nil, false
	}
	ctx, cancel := context.WithCancel(q.base)
	r := &run{cancel: cancel}
	q.running[j.ID] = r
	q.busy[j.Agent]++
	return ctx, r, true
}

// exec runs a job's turn and records what came of it.
func (q *Queue) exec(ctx context.Context, r *run, j store.Job, turn func(ctx context.Context) (agents.Result, error)) {
	defer r.cancel()
	defer func() {
		q.mu.Lock()
		delete(q.running, j.ID)
		if q.busy[j.Agent]--; q.busy[j.Agent] <= 0 {
			delete(q.busy, j.Agent)
		}
		q.mu.Unlock()
		q.changedNow()
		q.kick()
	}()
	from := j.State
	j, err := q.opt.Store.UpdateJob(ctx, j.ID, func(x *store.Job) error {
		if x.State != from {
			return jarvisbot.Errorf(jarvisbot.ECONFLICT, "job %s is %s now", x.ID, x.State)
		}
		x.State, x.Approval, x.StartedAt = store.JobRunning, "", q.opt.Clock.Now()
		x.Attempts++
		return nil
	})
	if err != nil {
		if jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT && ctx.Err() == nil {
			q.opt.Logger.Error("a job could not be started; it waits", "job", j.ID, "err", err)
		}
		return
	}
	q.changedNow()
	q.opt.Logger.Info("job started", "job", j.ID, "agent", j.Agent, "attempt", j.Attempts)

	watched := make(chan struct{})
	go func() { defer close(watched); q.watch(ctx, j) }()
	res, err := turn(ctx)
	r.cancel()
	<-watched

	q.mu.Lock()
	cancelled := r.cancelled
	q.mu.Unlock()
	after := context.WithoutCancel(ctx)
	switch {
	case cancelled || err == nil:
	case q.base.Err() != nil:
		// The service stops: the job stays as it stands, for the next
		// start to pick up (recover).
		q.opt.Logger.Info("job left for the next start", "job", j.ID, "err", err)
		return
	case errors.Is(err, agents.ErrAwaitingApproval):
		// The turn stopped at a request still pending from an earlier
		// attempt (a job cancelled while it waited, then retried): the
		// request carries the turn, and its decision continues it.
		q.waiting(after, j)
		return
	}
	_, uerr := q.opt.Store.UpdateJob(after, j.ID, func(x *store.Job) error {
		if x.State == store.JobCancelled {
			return nil // Cancel recorded it
		}
		x.FinishedAt, x.Approval = q.opt.Clock.Now(), ""
		x.Tools = toolsUsed(res)
		if err != nil {
			x.State, x.Error = store.JobFailed, err.Error()
			return nil
		}
		x.State, x.Result, x.Error = store.JobDone, res.Text, ""
		return nil
	})
	if uerr != nil {
		q.opt.Logger.Error("what came of a job could not be recorded", "job", j.ID, "err", uerr, "turn_err", err)
		return
	}
	q.opt.Logger.Info("job finished", "job", j.ID, "err", err)
}

// waiting marks a job whose turn stopped at a pending request as
// waiting_approval with it, for Continue to carry on.
func (q *Queue) waiting(ctx context.Context, j store.Job) {
	pending, err := q.pendingIn(ctx, j.Chat)
	if err == nil {
		_, err = q.opt.Store.UpdateJob(ctx, j.ID, func(x *store.Job) error {
			if x.State == store.JobCancelled {
				return nil
			}
			x.State, x.Approval = store.JobWaitingApproval, ""
			if len(pending) > 0 {
				x.Approval = pending[0].ID
			}
			return nil
		})
	}
	if err != nil {
		q.opt.Logger.Error("a job waiting for the owner's approval could not be marked so; it is picked up at the next start", "job", j.ID, "err", err)
	}
}

// watch keeps a running job's state in step with its turn's approval:
// waiting_approval with the request's id while one is pending in its chat,
// running again once it is decided. It checks at each Approval call and
// every PollEvery, until ctx ends.
func (q *Queue) watch(ctx context.Context, j store.Job) {
	waiting := ""
	for {
		q.mu.Lock()
		asked := q.asked
		q.mu.Unlock()
		pending, err := q.pendingIn(ctx, j.Chat)
		if err != nil && ctx.Err() == nil {
			q.opt.Logger.Warn("reading a job's pending approvals", "job", j.ID, "err", err)
		}
		id := ""
		if len(pending) > 0 {
			id = pending[0].ID
		}
		if err == nil && id != waiting {
			_, uerr := q.opt.Store.UpdateJob(ctx, j.ID, func(x *store.Job) error {
				if x.State != store.JobRunning && x.State != store.JobWaitingApproval {
					return errLeft
				}
				x.State, x.Approval = store.JobRunning, id
				if id != "" {
					x.State = store.JobWaitingApproval
				}
				return nil
			})
			if uerr == nil {
				waiting = id
				q.changedNow()
			}
		}
		tick := make(chan struct{})
		stop := q.opt.Clock.AfterFunc(q.opt.PollEvery, func() { close(tick) })
		select {
		case <-ctx.Done():
			stop()
			return
		case <-asked:
		case <-tick:
		}
		stop()
	}
}

// errLeft refuses a change to a job that has left the state it was for.
var errLeft = errors.New("the job has moved on")

// toolsUsed are the capability ids a turn called, each once, in order.
func toolsUsed(res agents.Result) []string {
	var out []string
	for _, c := range res.Calls {
		if !slices.Contains(out, c.Tool) {
			out = append(out, c.Tool)
		}
	}
	return out
}

func (q *Queue) kick() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// changes returns a channel closed at the next change of any job.
func (q *Queue) changes() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.changed
}

func (q *Queue) changedNow() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.changedLocked()
}

func (q *Queue) changedLocked() {
	close(q.changed)
	q.changed = make(chan struct{})
}
