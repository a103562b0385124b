package jobs

import (
	"context"
	"encoding/json"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/approvals"
	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fixtures"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// wait bounds every wait of these tests; generous for a slow machine.
const wait = 20 * time.Second

// env is a queue over real parts: SQLite, a catalog holding a snapshot of
// real MCP servers, the approvals engine and the runtime talking to the
// scripted model.
type env struct {
	db     *sqlstore.DB
	llm    *fakellm.Server
	rt     *agents.Runtime
	engine *approvals.Engine
	clk    *clock.Fake
	cat    *catalog.Catalog
	dice   *dice
	asked  chan store.Approval
	paused atomic.Bool
	// pausedSeen is signalled when Paused was asked while a job was
	// queued and answered true: the runner saw the job and left it.
	pausedSeen chan struct{}
	queue      atomic.Pointer[Queue]
	// unhooked keeps the engine from telling the queue of approvals:
	// only its poll sees them.
	unhooked atomic.Bool
}

// dice is a builtin tool that only runs once the owner approves (ask).
type dice struct{ n atomic.Int32 }

func (d *dice) Run(context.Context, catalog.Call) (catalog.Output, error) {
	d.n.Add(1)
	return catalog.Output{Text: "rolled a 4"}, nil
}

func diceCap() catalog.Capability {
	return catalog.Capability{ID: "builtin:dice", Kind: catalog.KindBuiltin, Source: "builtin", Name: "dice",
		Description: "Rolls a die.", InputSchema: json.RawMessage(`{"type":"object","properties":{"sides":{"type":"integer"}}}`),
		Tier: catalog.TierAsk, Connected: true}
}

func newEnv(t testing.TB) *env {
	t.Helper()
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "j.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f, err := os.Open(fixtures.Path(t, "catalog-seed.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	snap, err := catalog.ReadSnapshot(f, "catalog-seed.json")
	if err != nil {
		t.Fatal(err)
	}
	cat := catalog.New()
	if err := cat.LoadSnapshot(snap); err != nil {
		t.Fatal(err)
	}
	if err := cat.Add(diceCap()); err != nil {
		t.Fatal(err)
	}
	v := cat.View()
	for _, a := range []store.Agent{
		{Name: store.DefaultAgent, Description: "Your general assistant."},
		{Name: "reviewer", Description: "reviews code changes in my GitHub repositories"},
		{Name: "scholar", Description: "answers questions using what my NotebookLM notebooks hold"},
	} {
		a.Focus = v.Focus(a.Name, a.Description)
		if err := db.CreateAgent(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	fl := fakellm.New(t)
	p, err := llm.New(llm.Config{Provider: "anthropic", Model: "test-model", APIKey: "test-key", BaseURL: fl.AnthropicURL(), MaxRetries: 0, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{db: db, llm: fl, clk: clock.NewFake(time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)), cat: cat, dice: &dice{},
		asked: make(chan store.Approval, 8), pausedSeen: make(chan struct{}, 64)}
	e.engine = approvals.New(approvals.Options{Store: db, Clock: e.clk,
		Notify: func(a store.Approval) {
			if q := e.queue.Load(); q != nil && !e.unhooked.Load() {
				q.Approval(a)
			}
			if a.State == store.ApprovalPending {
				e.asked <- a
			}
		},
		Orphan: func(a store.Approval) {
			if q := e.queue.Load(); q == nil || !q.Continue(a) {
				t.Errorf("a decision on %s in %s was not the queue's", a.ID, a.Chat)
			}
		}})
	e.rt = &agents.Runtime{Catalog: cat.View, Store: db, Approvals: e.engine, Clock: e.clk,
		Runners: agents.Runners{"builtin:dice": e.dice},
		Model:   func(string) (agents.Model, error) { return agents.Model{Provider: p}, nil }}
	return e
}

// start runs a new queue on the env until the test ends.
func (e *env) start(t *testing.T) *Queue {
	t.Helper()
	q := New(Options{Store: e.db, Turner: e.rt, Approvals: e.engine, Clock: e.clk,
		Chooser: &Chooser{Agents: e.db, Catalog: e.cat.View},
		Paused: func(ctx context.Context) bool {
			p := e.paused.Load()
			if list, err := e.db.UnfinishedJobs(ctx); p && err == nil && len(list) > 0 {
				e.pausedSeen <- struct{}{}
			}
			return p
		}})
	e.queue.Store(q)
	ctx, cancel := context.WithCancel(context.Background())
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); <-q.Done() })
	return q
}

// postRoll posts a job whose turn calls the ask-tier dice tool, then
// follows the steps; it returns the job and the request it raised.
func (e *env) postRoll(t *testing.T, q *Queue, then ...fakellm.Step) (store.Job, store.Approval) {
	t.Helper()
	e.llm.Push(append([]fakellm.Step{{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("builtin:dice"), Input: `{"sides":6}`}}}}, then...)...)
	j := post(t, q, "cursor", "", "roll a die for me")
	return j, <-e.asked
}

// startPaused starts the queue paused, posts a job of app's, and returns
// once the runner has seen the job and left it queued.
func (e *env) startPaused(t *testing.T, app, text string) (*Queue, store.Job) {
	t.Helper()
	e.paused.Store(true)
	q := e.start(t)
	j := post(t, q, app, "", text)
	<-e.pausedSeen
	return q, j
}

// waitFirstCall waits for the first model call, what the test waits for.
func (e *env) waitFirstCall(t *testing.T, what string) {
	t.Helper()
	testwait.For(t, wait, what, func() (bool, any) { n := len(e.llm.Requests()); return n == 1, n })
}

// stopInFirstCall waits for the job's model call, then ends the queue's
// context (cancel) and waits until the queue is done.
func (e *env) stopInFirstCall(t *testing.T, q *Queue, cancel context.CancelFunc) {
	t.Helper()
	e.waitFirstCall(t, "the job's model call")
	cancel()
	select {
	case <-q.Done():
	case <-time.After(wait):
		t.Fatal("the queue did not stop")
	}
}

// post posts a job for the app, with its title (none when "").
func post(t *testing.T, q *Queue, app, title, text string) store.Job {
	t.Helper()
	j, err := q.Post(context.Background(), app, title, text)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// approve approves a request as the owner at the console.
func (e *env) approve(t *testing.T, id string) {
	t.Helper()
	if _, err := e.engine.Decide(context.Background(), id, "console", true, false); err != nil {
		t.Fatal(err)
	}
}

// approveRoll approves the dice request a job waits on and checks that
// the job (what the error calls it) ends done with the roll, the dice
// having run once.
func (e *env) approveRoll(t *testing.T, q *Queue, job, approval, what string) {
	t.Helper()
	e.llm.Push(fakellm.Step{Text: "You rolled a 4."})
	e.approve(t, approval)
	got := waitState(t, q, job, store.JobDone)
	if got.Result != "You rolled a 4." || e.dice.n.Load() != 1 {
		t.Errorf("%s %+v, dice ran %d times; want done after one run", what, got, e.dice.n.Load())
	}
}

// waitState waits until job id is in state.
func waitState(t *testing.T, q *Queue, id string, state store.JobState) store.Job {
	t.Helper()
	var j store.Job
	testwait.For(t, wait, "job "+id+" "+string(state), func() (bool, any) {
		var err error
		j, err = q.opt.Store.Job(context.Background(), id)
		return err == nil && j.State == state, j
	}, testwait.WithChange(q.changes))
	return j
}

// idle waits until no turn of the queue runs.
func idle(t *testing.T, q *Queue) {
	t.Helper()
	testwait.For(t, wait, "no job running", func() (bool, any) {
		q.mu.Lock()
		defer q.mu.Unlock()
		return len(q.running) == 0, len(q.running)
	}, testwait.WithChange(q.changes))
}

// TestChooseByFocusAndSkillsNoModelM4: a job goes to the agent whose focus
// covers what its words point at, and why names the focus, the server and
// the words; a text no focus covers goes to the default agent, saying so.
// No model is called.
func TestChooseByFocusAndSkillsNoModelM4(t *testing.T) {
	e := newEnv(t)
	c := &Chooser{Agents: e.db, Catalog: e.cat.View}
	cases := []struct {
		text, agent string
		why         []string
	}{
		{"Look over the open pull request on the website repo and leave comments", "reviewer", []string{"focus mcp:github/* covers github", "point at"}},
		{"Which of my GitHub issues are still open?", "reviewer", []string{"mcp:github/*", "github"}},
		{"Summarise what my NotebookLM notebook on the garden says about tomatoes", "scholar", []string{"notebooklm-mcp"}},
		{"Write a short poem about autumn rain", store.DefaultAgent, []string{"default agent takes it"}},
	}
	for _, tc := range cases {
		t.Run(tc.text, func(t *testing.T) {
			got, err := c.Choose(context.Background(), tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if got.Agent != tc.agent {
				t.Fatalf("chose %s (%s), want %s", got.Agent, got.Why, tc.agent)
			}
			for _, w := range tc.why {
				if !strings.Contains(got.Why, w) {
					t.Errorf("why %q does not say %q", got.Why, w)
				}
			}
		})
	}
	if n := len(e.llm.Requests()); n != 0 {
		t.Errorf("choosing made %d model calls, want none", n)
	}
}

// TestChooseTieBrokenByNameM4: two agents with the same focus tie; the
// first by name takes the job, every time, and why says so.
func TestChooseTieBrokenByNameM4(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a := store.Agent{Name: "auditor", Description: "reviews code changes in my GitHub repositories"}
	a.Focus = e.cat.View().Focus(a.Name, a.Description)
	if err := e.db.CreateAgent(ctx, a); err != nil {
		t.Fatal(err)
	}
	c := &Chooser{Agents: e.db, Catalog: e.cat.View}
	for range 3 {
		got, err := c.Choose(ctx, "Merge the pull request that repairs the signup form")
		if err != nil {
			t.Fatal(err)
		}
		if got.Agent != "auditor" || !strings.Contains(got.Why, "tied with reviewer") {
			t.Fatalf("chose %s (%s), want auditor, tied with reviewer", got.Agent, got.Why)
		}
	}
}

// TestPostedJobRunsToDoneM4: a posted job is stored with its agent and
// why, runs as one turn of that agent in its own chat, and is done with
// the reply.
func TestPostedJobRunsToDoneM4(t *testing.T) {
	e := newEnv(t)
	q := e.start(t)
	ctx := context.Background()
	e.llm.Push(fakellm.Step{Text: "Two comments left on the pull request."})
	j := post(t, q, "cursor", "review", "Look over the open pull request on the website repo and leave comments")
	if j.Agent != "reviewer" || j.Why == "" || j.App != "cursor" || j.Chat != "job:"+j.ID {
		t.Fatalf("posted %+v", j)
	}
	got, err := q.Wait(ctx, j.ID)
	if err != nil || got.State != store.JobDone || got.Result != "Two comments left on the pull request." || got.Attempts != 1 ||
		got.StartedAt.IsZero() || got.FinishedAt.IsZero() {
		t.Fatalf("job %+v, %v; want done with the reply", got, err)
	}
	h, err := e.db.History(ctx, "job:"+j.ID, 10)
	if err != nil || len(h) != 2 || h[0].Agent != "reviewer" {
		t.Errorf("history of the job's chat: %d messages, %v", len(h), err)
	}
}

// TestFailedJobRetriedM4: a model that fails leaves the job failed with
// the error; a retry queues it again, and the new attempt is done.
func TestFailedJobRetriedM4(t *testing.T) {
	e := newEnv(t)
	q := e.start(t)
	ctx := context.Background()
	e.llm.Push(fakellm.Step{Status: 400, Text: "model refuses this request"})
	j := post(t, q, "codex", "", "Write a short poem about autumn rain")
	got, err := q.Wait(ctx, j.ID)
	if err != nil || got.State != store.JobFailed || !strings.Contains(got.Error, "model refuses this request") {
		t.Fatalf("job %+v, %v; want failed with the model's error", got, err)
	}
	if _, err := q.Retry(ctx, "nope"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("retry of a missing job: %v", err)
	}
	e.llm.Push(fakellm.Step{Text: "Rain on the gutters."})
	r, err := q.Retry(ctx, j.ID)
	if err != nil || r.State != store.JobQueued || r.Error != "" {
		t.Fatalf("retry: %+v, %v", r, err)
	}
	got = waitState(t, q, j.ID, store.JobDone)
	if got.Result != "Rain on the gutters." || got.Attempts != 2 {
		t.Errorf("after retry %+v; want done on attempt 2", got)
	}
	if _, err := q.Retry(ctx, j.ID); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
		t.Errorf("retry of a done job: %v, want ECONFLICT", err)
	}
	// The retried turn went on from the stored message: the model saw it once.
	reqs := e.llm.Requests()
	if n := len(reqs[len(reqs)-1].Messages); n != 1 {
		t.Errorf("the retried turn sent %d messages, want the job's text once", n)
	}
}

// TestCancelQueuedAndRunningM4: a queued job is cancelled at once and never
// runs; a running one has its turn cancelled and stays cancelled.
func TestCancelQueuedAndRunningM4(t *testing.T) {
	e := newEnv(t)
	q, j := e.startPaused(t, "cursor", "Write a short poem about autumn rain")
	ctx := context.Background()
	c, err := q.Cancel(ctx, j.ID)
	if err != nil || c.State != store.JobCancelled {
		t.Fatalf("cancel queued: %+v, %v", c, err)
	}
	if _, err := q.Cancel(ctx, j.ID); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
		t.Errorf("second cancel: %v, want ECONFLICT", err)
	}

	e.llm.Push(fakellm.Step{Hang: true})
	e.paused.Store(false)
	q.Resume()
	r := post(t, q, "cursor", "", "Write a long poem about winter")
	e.waitFirstCall(t, "the running job's model call")
	if got, _ := e.db.Job(ctx, r.ID); got.State != store.JobRunning {
		t.Fatalf("job %+v while its model call hangs, want running", got)
	}
	if _, err := q.Cancel(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	idle(t, q)
	for _, id := range []string{j.ID, r.ID} {
		if got, _ := e.db.Job(ctx, id); got.State != store.JobCancelled || got.Result != "" {
			t.Errorf("job %+v after its turn ended, want cancelled", got)
		}
	}
	if n := len(e.llm.Requests()); n != 1 {
		t.Errorf("%d model calls, want only the running job's", n)
	}
}

// TestPausedStartsNothingUntilResumeM4: while paused, the runner sees a
// queued job and leaves it; Resume starts it.
func TestPausedStartsNothingUntilResumeM4(t *testing.T) {
	e := newEnv(t)
	q, j := e.startPaused(t, "cursor", "Write a short poem about autumn rain")
	ctx := context.Background()
	e.llm.Push(fakellm.Step{Text: "done"})
	if got, _ := e.db.Job(ctx, j.ID); got.State != store.JobQueued || len(e.llm.Requests()) != 0 {
		t.Fatalf("job %+v and %d model calls while paused; want queued, none", got, len(e.llm.Requests()))
	}
	e.paused.Store(false)
	q.Resume()
	if got := waitState(t, q, j.ID, store.JobDone); got.Result != "done" {
		t.Errorf("after resume %+v", got)
	}
}

// TestAskTierJobWaitsForApprovalM4: a job whose turn calls an ask-tier
// tool is waiting_approval with the request's id; the owner's approval
// through the engine lets it run and the job is done.
func TestAskTierJobWaitsForApprovalM4(t *testing.T) {
	e := newEnv(t)
	q := e.start(t)
	ctx := context.Background()
	j, a := e.postRoll(t, q, fakellm.Step{Text: "You rolled a 4."})
	got, err := q.Wait(ctx, j.ID)
	if err != nil || got.State != store.JobWaitingApproval || got.Approval != a.ID {
		t.Fatalf("job %+v, %v; want waiting_approval with %s", got, err, a.ID)
	}
	if e.dice.n.Load() != 0 {
		t.Fatal("the ask-tier tool ran before the owner approved")
	}
	e.approve(t, a.ID)
	got = waitState(t, q, j.ID, store.JobDone)
	if got.Result != "You rolled a 4." || got.Approval != "" || e.dice.n.Load() != 1 || strings.Join(got.Tools, ",") != "builtin:dice" {
		t.Errorf("job %+v, dice ran %d times; want done after one run", got, e.dice.n.Load())
	}
}

// TestChatPinnedToAgentM4: agent_chat runs a turn of the named agent in
// its chat with the app and returns the answer within the timeout; while
// paused it returns the job still queued when the time is up.
func TestChatPinnedToAgentM4(t *testing.T) {
	e := newEnv(t)
	q := e.start(t)
	ctx := context.Background()
	e.llm.Push(fakellm.Step{Text: "Hello from the reviewer."})
	j, err := q.Chat(ctx, "cursor", "reviewer", "Write a short poem about autumn rain", wait)
	if err != nil || j.State != store.JobDone || j.Result != "Hello from the reviewer." || j.Agent != "reviewer" || j.Chat != "app:cursor:reviewer" {
		t.Fatalf("chat: %+v, %v", j, err)
	}
	if h, _ := e.db.History(ctx, "app:cursor:reviewer", 10); len(h) != 2 {
		t.Errorf("the reviewer's chat with cursor holds %d messages, want 2", len(h))
	}
	e.paused.Store(true)
	j, err = q.Chat(ctx, "cursor", "reviewer", "and another", 50*time.Millisecond)
	if err != nil || j.State != store.JobQueued || j.ID == "" {
		t.Errorf("chat while paused: %+v, %v; want the job, queued", j, err)
	}
	if _, err := q.Chat(ctx, "cursor", "Not A Name", "hi", wait); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("chat with a bad agent name: %v", err)
	}
}

// TestRestartRecoveryM4: a job a crash left running goes back to queued
// and runs; a job whose turn waited for approval when the service stopped
// stays waiting_approval after the restart, and the owner's decision
// continues its turn to done.
func TestRestartRecoveryM4(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()

	// A crash left this one running, its message stored.
	left, err := e.db.AddJob(ctx, store.Job{App: "cursor", Text: "Write a short poem about autumn rain", Agent: store.DefaultAgent, Why: "w"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.UpdateJob(ctx, left.ID, func(j *store.Job) error {
		j.State, j.StartedAt, j.Attempts = store.JobRunning, e.clk.Now(), 1
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	content, _ := json.Marshal(llm.Message{Role: llm.RoleUser, Text: agents.FromApp(left.App, left.Text)}) // as its turn stores it
	if _, err := e.db.AppendMessage(ctx, store.Message{Chat: left.Chat, Agent: store.DefaultAgent, Role: llm.RoleUser, Content: content, CreatedAt: e.clk.Now()}); err != nil {
		t.Fatal(err)
	}

	// This one waits for approval when the first queue stops.
	e.paused.Store(true)
	q1ctx, stop := context.WithCancel(ctx)
	q1 := New(Options{Store: e.db, Turner: e.rt, Approvals: e.engine, Clock: e.clk, Chooser: &Chooser{Agents: e.db, Catalog: e.cat.View},
		Paused: func(context.Context) bool { return false }})
	e.queue.Store(q1)
	// Only the waiting job may run in the first queue: the crashed one is
	// taken out of line for now, and put back as the crash left it.
	if _, err := e.db.UpdateJob(ctx, left.ID, func(j *store.Job) error { j.State = store.JobFailed; return nil }); err != nil {
		t.Fatal(err)
	}
	e.llm.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("builtin:dice"), Input: `{"sides":6}`}}})
	if err := q1.Start(q1ctx); err != nil {
		t.Fatal(err)
	}
	w := post(t, q1, "cursor", "", "roll a die for me")
	a := <-e.asked
	if got, _ := q1.Wait(ctx, w.ID); got.State != store.JobWaitingApproval {
		t.Fatalf("job %+v, want waiting_approval", got)
	}
	stop()
	<-q1.Done()
	if _, err := e.db.UpdateJob(ctx, left.ID, func(j *store.Job) error { j.State = store.JobRunning; return nil }); err != nil {
		t.Fatal(err)
	}

	e.paused.Store(false)
	e.llm.Push(fakellm.Step{Text: "Leaves fall."})
	q2 := e.start(t)
	got := waitState(t, q2, left.ID, store.JobDone)
	if got.Result != "Leaves fall." || got.Attempts != 2 {
		t.Errorf("crashed job after restart %+v; want done on attempt 2", got)
	}
	if reqs := e.llm.Requests(); len(reqs[len(reqs)-1].Messages) != 1 {
		t.Errorf("the crashed job's turn sent %d messages, want its stored message once", len(reqs[len(reqs)-1].Messages))
	}
	if got, _ := e.db.Job(ctx, w.ID); got.State != store.JobWaitingApproval || got.Approval != a.ID {
		t.Fatalf("waiting job after restart %+v; want waiting_approval with %s", got, a.ID)
	}
	e.approveRoll(t, q2, w.ID, a.ID, "waiting job after the decision")
}

// TestQueueStopsWithItsContextM4: Done closes once Start's context ends,
// with a turn in flight cancelled.
func TestQueueStopsWithItsContextM4(t *testing.T) {
	e := newEnv(t)
	q := New(Options{Store: e.db, Turner: e.rt, Chooser: &Chooser{Agents: e.db, Catalog: e.cat.View}})
	ctx, cancel := context.WithCancel(context.Background())
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	e.llm.Push(fakellm.Step{Hang: true})
	j := post(t, q, "cursor", "", "Write a short poem about autumn rain")
	e.stopInFirstCall(t, q, cancel)
	if got, _ := e.db.Job(context.Background(), j.ID); got.State != store.JobRunning {
		t.Errorf("job %+v after the stop; want running, for the next start", got)
	}
}

// TestQueueStopLogsNoErrorX4: the work the stop cuts (the runner woken by
// the job that ends with the stop, a decision that comes while it stops)
// is the stop, not a failure: nothing is logged at ERROR.
func TestQueueStopLogsNoErrorX4(t *testing.T) {
	e := newEnv(t)
	var logged testwait.Buffer
	log := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
	q := New(Options{Store: e.db, Turner: e.rt, Chooser: &Chooser{Agents: e.db, Catalog: e.cat.View}, Logger: log})
	ctx, cancel := context.WithCancel(context.Background())
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	e.llm.Push(fakellm.Step{Hang: true})
	post(t, q, "cursor", "", "Write a short poem about autumn rain")
	e.stopInFirstCall(t, q, cancel)
	// What a wake-up racing the stop does, whichever the runner's select
	// picked.
	q.startQueued()
	if strings.Contains(logged.String(), "level=ERROR") {
		t.Errorf("the stop logged an error:\n%s", logged.String())
	}
}

// TestChooseByOwnSkillM4: an agent whose own skill (under its folder,
// skills.AgentDir) matches the text takes the job, and why names the
// skill; the default agent, without that skill, does not.
func TestChooseByOwnSkillM4(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	dataDir := t.TempDir()
	if err := e.db.CreateAgent(ctx, store.Agent{Name: "gardener", Description: "looks after the plants on my balcony"}); err != nil {
		t.Fatal(err)
	}
	dir, err := skills.AgentDir(dataDir, "gardener").Join("watering")
	if err != nil {
		t.Fatal(err)
	}
	md := "---\nname: watering\ndescription: Water the balcony plants on schedule and note when each was watered.\nmetadata:\n  jarvisbot.words: \"water the plants, watering, balcony plants\"\n---\n\n# Watering\n\nCheck the soil first.\n"
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, skills.FileName), []byte(md), 0o600); err != nil {
		t.Fatal(err)
	}
	c := &Chooser{Agents: e.db, Catalog: e.cat.View, DataDir: dataDir,
		Skills: func(_ context.Context, agent string) (*skills.Ranker, error) {
			list, err := skills.ReadFolder(skills.AgentDir(dataDir, agent), io.Discard)
			if err != nil || len(list) == 0 {
				return nil, err
			}
			return skills.NewRanker(list), nil
		}}
	got, err := c.Choose(ctx, "Please water the balcony plants while I am away this weekend")
	if err != nil {
		t.Fatal(err)
	}
	if got.Agent != "gardener" || !strings.Contains(got.Why, "its own skill watering matches") {
		t.Errorf("chose %s (%s), want gardener by its own skill watering", got.Agent, got.Why)
	}
	if got, _ := c.Choose(ctx, "Write a short poem about autumn rain"); got.Agent != store.DefaultAgent {
		t.Errorf("a poem went to %s (%s), want the default agent", got.Agent, got.Why)
	}
}

// TestWaitingApprovalSeenByPollM4: without the Approval hook, a job whose
// turn waits for the owner is marked waiting_approval at the next poll.
func TestWaitingApprovalSeenByPollM4(t *testing.T) {
	e := newEnv(t)
	e.unhooked.Store(true)
	q := e.start(t)
	ctx := context.Background()
	j, a := e.postRoll(t, q, fakellm.Step{Text: "You rolled a 4."})
	testwait.For(t, wait, "job "+j.ID+" waiting_approval at a poll", func() (bool, any) {
		got, err := e.db.Job(ctx, j.ID)
		if err != nil || got.State != store.JobWaitingApproval {
			e.clk.Advance(q.opt.PollEvery) // the next poll; far from the request's expiry
			return false, got
		}
		return got.Approval == a.ID, got
	})
	e.approve(t, a.ID)
	waitState(t, q, j.ID, store.JobDone)
}

// TestRetriedJobWaitsForItsEarlierRequestM4: a job cancelled while its
// turn waited for the owner, then retried, waits for the same request
// (the owner is not asked twice); the decision carries it to done.
func TestRetriedJobWaitsForItsEarlierRequestM4(t *testing.T) {
	e := newEnv(t)
	q := e.start(t)
	ctx := context.Background()
	j, a := e.postRoll(t, q)
	waitState(t, q, j.ID, store.JobWaitingApproval)
	if _, err := q.Cancel(ctx, j.ID); err != nil {
		t.Fatal(err)
	}
	idle(t, q)
	if _, err := q.Retry(ctx, j.ID); err != nil {
		t.Fatal(err)
	}
	got := waitState(t, q, j.ID, store.JobWaitingApproval)
	if got.Approval != a.ID || len(e.asked) != 0 {
		t.Fatalf("retried job %+v, %d new requests; want waiting for %s again", got, len(e.asked), a.ID)
	}
	idle(t, q)
	e.approveRoll(t, q, j.ID, a.ID, "job")
}

// BenchmarkChoose measures choosing the agent for a job (no model call)
// over a snapshot of real MCP servers and three agents.
func BenchmarkChoose(b *testing.B) {
	e := newEnv(b)
	c := &Chooser{Agents: e.db, Catalog: e.cat.View}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Choose(ctx, "Look over the open pull request on the website repo and leave comments"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAppOfChatM4: the app behind a job's chat or an agent's chat with an
// app is known, so that no app resolves an approval its own request
// raised; the owner's chats belong to no app.
func TestAppOfChatM4(t *testing.T) {
	e := newEnv(t)
	q, j := e.startPaused(t, "claude-desktop", "Write a short poem about autumn rain")
	ctx := context.Background()
	for chat, want := range map[string]string{j.Chat: "claude-desktop", AppChat("my:app", "reviewer"): "my:app", "telegram:123": "", "console": ""} {
		if got, err := q.AppOf(ctx, chat); err != nil || got != want {
			t.Errorf("AppOf(%q) = %q, %v; want %q", chat, got, err, want)
		}
	}
	if _, err := q.AppOf(ctx, "job:nope"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("AppOf of a missing job's chat: %v, want ENOTFOUND", err)
	}
}

// TestChooseByStoreFocusBeforeThePluginIsConnectedM4: an agent whose focus
// has a store plugin that is not installed gets the jobs that name that
// plugin, and why says the plugin needs installing; the shipped store
// names the plugin, as it did when the agent was added.
func TestChooseByStoreFocusBeforeThePluginIsConnectedM4(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	shop, err := collection.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.db.CreateAgent(ctx, store.Agent{Name: "inbox", Description: "a daily overview of my Gmail inbox", Focus: []string{"plugin:gmail"}}); err != nil {
		t.Fatal(err)
	}
	c := &Chooser{Agents: e.db, Catalog: e.cat.View, Named: func(text string) []string {
		byName, byWords := shop.Named(text)
		return append(byName, byWords...)
	}}
	got, err := c.Choose(ctx, "Go through my Gmail inbox and list what needs an answer today")
	if err != nil {
		t.Fatal(err)
	}
	if got.Agent != "inbox" || !strings.Contains(got.Why, "focus plugin:gmail fits the job, but gmail is not connected") || !strings.Contains(got.Why, "jarvisbot plugins install gmail") {
		t.Errorf("chose %s (%s), want inbox, saying Gmail is not connected", got.Agent, got.Why)
	}
	if got, _ = c.Choose(ctx, "Write a short poem about autumn rain"); got.Agent != store.DefaultAgent {
		t.Errorf("a poem went to %s (%s)", got.Agent, got.Why)
	}
}
