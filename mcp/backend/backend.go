// Package backend is the running service as jarvisbot's MCP surface sees
// it (SPEC M4, X5): surface.Backend over the store, the catalog, the job
// queue and the approvals engine, and over the app layer's use cases
// (the skill list, the schedule, notices to the owner, export and
// import), whose typed results it renders as the surface's tool results.
// ForSession builds it from a running app.Session. It holds no state of
// its own; every answer is read when asked.
package backend

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/approvals"
	"github.com/jarvisbot/jarvisbot/agents/jobs"
	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/agents/usage"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/visible"
	"github.com/jarvisbot/jarvisbot/mcp/surface"
	"github.com/jarvisbot/jarvisbot/store"
)

// Store is what the backend reads and writes of the store.
type Store interface {
	store.Agents
	store.ActivityLog
	store.Approvals
	History(ctx context.Context, chat string, limit int) ([]store.Message, error)
	store.SkillSwitches
	UpdateScheduleState(ctx context.Context, skill string, change func(*store.ScheduleState)) (store.ScheduleState, error)
	MCPServers(ctx context.Context) ([]store.MCPServer, error)
	Paused(ctx context.Context) (bool, string, time.Time, error)
	SetPaused(ctx context.Context, paused bool, by string) error
}

// Service implements surface.Backend. The funcs are the running service's
// parts that live above this package; nil ones answer EUNAVAILABLE.
type Service struct {
	Store   Store
	Catalog func() *catalog.View
	Engine  *approvals.Engine
	Focus   agents.Focuser
	// SkillList lists the skills with their switches, as /skills does.
	SkillList func(ctx context.Context) ([]surface.Skill, error)
	// ScheduleList lists the scheduled skills; RunNow runs one now and
	// returns its report.
	ScheduleList func(ctx context.Context) ([]surface.ScheduleEntry, error)
	RunNow       func(ctx context.Context, skill string) (string, error)
	// Notify posts an app's notice to the owner's main chat: its Text,
	// or its File where the chat takes files.
	Notify func(ctx context.Context, n Notice) error
	// Paused is told of pause_all and resume_all, so the dispatcher and
	// the job queue start (or stop starting) turns at once.
	Paused func(paused bool)
	Queue  Jobs
	Now    func() time.Time
	// Usage sums today's and this month's model calls; nil leaves them
	// out of the status.
	Usage func(ctx context.Context) (app.UsageSummary, error)
}

// Jobs is the job queue as the surface needs it: work posted by apps
// without naming who does it, agent_chat turns, and notes for an agent's
// next turn.
type Jobs interface {
	Counts(ctx context.Context) (queued, running int, err error)
	// AppOfChat names the app whose job runs in chat, "" for none.
	AppOfChat(ctx context.Context, chat string) string
	Post(ctx context.Context, app, title, text string) (surface.Job, error)
	List(ctx context.Context, app string, limit int) ([]surface.Job, error)
	Get(ctx context.Context, id string) (surface.Job, error)
	Cancel(ctx context.Context, id string) (surface.Job, error)
	Retry(ctx context.Context, id string) (surface.Job, error)
	Chat(ctx context.Context, app, agent, text string, timeout time.Duration) (surface.ChatResult, error)
	Note(ctx context.Context, app, agent, text string) error
}

var _ surface.Backend = (*Service)(nil)

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// Status is the service at a glance.
func (s *Service) Status(ctx context.Context) (surface.Status, error) {
	var st surface.Status
	list, err := s.Store.Agents(ctx)
	if err != nil {
		return st, err
	}
	st.Agents = len(list)
	pending, err := s.Store.PendingApprovals(ctx)
	if err != nil {
		return st, err
	}
	st.PendingApprovals = len(pending)
	if st.Paused, st.PausedBy, _, err = s.Store.Paused(ctx); err != nil {
		return st, err
	}
	if s.Queue != nil {
		if st.JobsQueued, st.JobsRunning, err = s.Queue.Counts(ctx); err != nil {
			return st, err
		}
	}
	if s.Usage != nil {
		sum, err := s.Usage(ctx)
		if err != nil {
			return st, err
		}
		st.Usage = usageOf(sum)
	}
	return st, nil
}

func usageOf(sum app.UsageSummary) *surface.Usage {
	figures := func(t usage.Totals) surface.UsageFigures {
		return surface.UsageFigures{Calls: t.Calls, FailedCalls: t.Errors, InputTokens: t.InputTokens, OutputTokens: t.OutputTokens,
			CacheReadTokens: t.CacheReadTokens, CacheWriteTokens: t.CacheWriteTokens, CostUSD: t.Cost, UnpricedCalls: t.Unpriced,
			ToolTokensSent: t.ToolTokens, CatalogTokens: t.CatalogTokens, GateSaved: t.Saved()}
	}
	u := &surface.Usage{Today: figures(sum.Today), Month: figures(sum.Month)}
	for _, r := range sum.TopAgents {
		u.TopAgents = append(u.TopAgents, surface.AgentSpend{Agent: r.Key, Calls: r.Calls, CostUSD: r.Cost})
	}
	return u
}

// Agents lists the agents.
func (s *Service) Agents(ctx context.Context) ([]surface.Agent, error) {
	list, err := s.Store.Agents(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]surface.Agent, 0, len(list))
	for _, a := range list {
		out = append(out, agentOf(a))
	}
	return out, nil
}

func agentOf(a store.Agent) surface.Agent {
	return surface.Agent{Name: a.Name, Description: a.Description, Focus: a.Focus, Allow: a.Allow, Block: a.Block}
}

// Agent is one agent with its recent activity.
func (s *Service) Agent(ctx context.Context, name string) (surface.Agent, error) {
	a, err := s.Store.Agent(ctx, name)
	if err != nil {
		return surface.Agent{}, err
	}
	out := agentOf(a)
	out.Recent, err = s.Activity(ctx, name, 10)
	return out, err
}

// Capabilities lists the catalog, optionally of one kind.
func (s *Service) Capabilities(ctx context.Context, kind string) ([]surface.Capability, error) {
	if kind != "" {
		if _, _, err := catalog.ParseID(kind + ":x"); err != nil {
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "unknown kind %q: use plugin, mcp, skill, cli or builtin", kind)
		}
	}
	v := s.Catalog()
	var out []surface.Capability
	for _, cp := range v.Capabilities() {
		if kind != "" && string(cp.Kind) != kind {
			continue
		}
		state := "connected"
		switch {
		case catalog.OnNeverList(cp.Name):
			state = "never-list"
		case !cp.Connected:
			state = "not connected"
		}
		out = append(out, surface.Capability{ID: cp.ID, Kind: string(cp.Kind), Tier: string(cp.Tier), State: state})
	}
	return out, nil
}

// Skills lists the skills.
func (s *Service) Skills(ctx context.Context) ([]surface.Skill, error) {
	if s.SkillList == nil {
		return nil, unavailable("the skill list")
	}
	return s.SkillList(ctx)
}

func unavailable(what string) error {
	return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s is not available in this jarvisbot", what)
}

// Activity is the board, newest first, optionally of one agent.
func (s *Service) Activity(ctx context.Context, agent string, limit int) ([]surface.Activity, error) {
	limit = cmp.Or(min(max(limit, 0), 200), 20)
	want := limit
	if agent != "" {
		want = 500 // the board is filtered here
	}
	list, err := s.Store.RecentActivity(ctx, want)
	if err != nil {
		return nil, err
	}
	var out []surface.Activity
	for _, a := range list {
		if agent != "" && a.Agent != agent {
			continue
		}
		out = append(out, surface.Activity{At: a.At, Agent: a.Agent, App: a.App, Tool: a.Tool, Tier: a.Tier, Args: a.Args, Outcome: a.Outcome, Duration: a.Duration.Round(time.Millisecond).String()})
		if len(out) == limit {
			break
		}
	}
	return out, nil
}

// Schedule lists the scheduled skills.
func (s *Service) Schedule(ctx context.Context) ([]surface.ScheduleEntry, error) {
	if s.ScheduleList == nil {
		return nil, unavailable("the schedule")
	}
	return s.ScheduleList(ctx)
}

// ChatHistory is an agent's conversation with the app, oldest first:
// what was said, without tool traffic.
func (s *Service) ChatHistory(ctx context.Context, app, agent string, limit int) ([]surface.ChatMessage, error) {
	limit = cmp.Or(min(max(limit, 0), 200), 20)
	if agent == "" {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "name the agent whose conversation with you to show")
	}
	msgs, err := s.Store.History(ctx, jobs.AppChat(app, agent), 4*limit)
	if err != nil {
		return nil, err
	}
	var out []surface.ChatMessage
	for _, m := range msgs {
		var lm llm.Message
		if json.Unmarshal(m.Content, &lm) != nil || strings.TrimSpace(lm.Text) == "" {
			continue
		}
		if _, text, ok := agents.AppText(lm.Text); ok && m.Role == llm.RoleUser {
			lm.Text = text // the app's own words, without the mark the model sees
		}
		out = append(out, surface.ChatMessage{Role: m.Role, Text: lm.Text, At: m.CreatedAt})
	}
	if len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out, nil
}

// CreateAgent adds an agent, its focus chosen from the description as for
// `agents add`.
func (s *Service) CreateAgent(ctx context.Context, name, description string) (surface.Agent, error) {
	a, err := agents.Add(ctx, s.Store, s.Focus, name, agents.Spec{Description: description})
	if err != nil {
		return surface.Agent{}, err
	}
	return agentOf(a), nil
}

// Notice is an app's notice to the owner as the chat gets it (X5): the
// app layer sends it; noticeOf makes it from what the app wrote.
type Notice = app.Notice

// NotifyOwner posts to the owner's main chat, marked as from the app: the
// text bounded (one message, or one file), shown as written with its
// addresses and control characters inert, so nothing in it reads as
// jarvisbot's own notice or link (X5).
func (s *Service) NotifyOwner(ctx context.Context, app, text string) error {
	if s.Notify == nil {
		return unavailable("posting to the owner")
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "text is empty")
	}
	if len(text) > surface.NoticeFileMax {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "text is %d bytes: notify_owner takes at most %d (1 MiB), sent as a file past %d characters; shorten it or send a link to it", len(text), surface.NoticeFileMax, surface.NoticeMax)
	}
	return s.Notify(ctx, noticeOf(app, text))
}

// noticeOf is text as the owner's chat shows it.
func noticeOf(app, text string) Notice {
	mark := "From app " + app + ":"
	shown := visible.Inert(text)
	n := units(shown)
	if n <= surface.NoticeMax {
		return Notice{Text: mark + "\n" + shown}
	}
	return Notice{
		Text:     fmt.Sprintf("%s (the first %d of %d characters; the rest is cut, as this chat takes no files)\n%s…", mark, surface.NoticeMax, n, cutUnits(shown, surface.NoticeMax)),
		File:     []byte(mark + "\n" + shown + "\n"),
		FileName: "from-app-" + app + ".txt",
		Caption:  fmt.Sprintf("%s a notice of %d characters, longer than the %d one message holds, in the attached file.", mark, n, surface.NoticeMax),
	}
}

// units is the length of s as Discord counts it, in UTF-16 units.
func units(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// cutUnits is the start of s that holds at most max UTF-16 units.
func cutUnits(s string, max int) string {
	n := 0
	for i, r := range s {
		if n += utf16.RuneLen(r); n > max {
			return s[:i]
		}
	}
	return s
}

// Approvals lists the pending requests.
func (s *Service) Approvals(ctx context.Context) ([]surface.Approval, error) {
	list, err := s.Store.PendingApprovals(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]surface.Approval, 0, len(list))
	for _, a := range list {
		out = append(out, s.approvalOf(ctx, a))
	}
	return out, nil
}

// Approval is one request.
func (s *Service) Approval(ctx context.Context, id string) (surface.Approval, error) {
	a, err := s.Store.Approval(ctx, id)
	if err != nil {
		return surface.Approval{}, err
	}
	return s.approvalOf(ctx, a), nil
}

// approvalOf says which app's request raised a: its chat is the app's
// conversation, or the chat of one of its jobs.
func (s *Service) approvalOf(ctx context.Context, a store.Approval) surface.Approval {
	app := ""
	if s.Queue != nil {
		app = s.Queue.AppOfChat(ctx, a.Chat)
	}
	apps := slices.Clone(a.Apps)
	if app != "" && !slices.Contains(apps, app) {
		apps = append([]string{app}, apps...)
	}
	by := ""
	switch {
	case a.DeciderApp() != "":
		by = "app " + a.DeciderApp()
	case a.DecidedBy != "" && a.State != store.ApprovalPending:
		by = "owner"
	}
	return surface.Approval{ID: a.ID, Tool: a.Tool, Summary: a.Summary, Agent: a.Agent, State: string(a.State), Expires: a.ExpiresAt, App: app, Apps: apps, DecidedBy: by}
}

// ResolveApproval decides once through the engine, as a button would.
func (s *Service) ResolveApproval(ctx context.Context, app, id string, approve bool) (surface.Approval, error) {
	a, err := s.Engine.Decide(ctx, id, "app:"+app, approve, false)
	out := s.approvalOf(ctx, a)
	if jarvisbot.ErrorCode(err) == jarvisbot.ECONFLICT {
		return out, jarvisbot.Errorf(jarvisbot.ECONFLICT, "approval %s was already decided: %s", id, a.State)
	}
	return out, err
}

// Pause stops every agent from starting a turn until Resume.
func (s *Service) Pause(ctx context.Context, app string) error {
	if err := s.Store.SetPaused(ctx, true, "app "+app); err != nil {
		return err
	}
	if s.Paused != nil {
		s.Paused(true)
	}
	return nil
}

// Resume lets agents start turns again.
func (s *Service) Resume(ctx context.Context, app string) error {
	if err := s.Store.SetPaused(ctx, false, ""); err != nil {
		return err
	}
	if s.Paused != nil {
		s.Paused(false)
	}
	return nil
}

// Record puts an app's call on the activity board under its name.
func (s *Service) Record(ctx context.Context, app, tool, outcome string, took time.Duration) {
	// The board is the record; when it cannot be written the call has
	// still happened, and the app already has its answer.
	_ = s.Store.RecordActivity(context.WithoutCancel(ctx), store.Activity{At: s.now(), Agent: "app:" + app, Tool: "mcp-surface:" + tool, Tier: "monitor", Outcome: outcome, Duration: took})
}

// RunSchedule runs a scheduled skill now and returns its report.
func (s *Service) RunSchedule(ctx context.Context, skill string) (string, error) {
	if s.RunNow == nil {
		return "", unavailable("running a scheduled skill")
	}
	return s.RunNow(ctx, skill)
}

func (s *Service) jobs() (Jobs, error) {
	if s.Queue == nil {
		return nil, unavailable("the job queue")
	}
	return s.Queue, nil
}

// Chat runs one turn of agent in the app's conversation with it.
func (s *Service) Chat(ctx context.Context, app, agent, text string, timeout time.Duration) (surface.ChatResult, error) {
	j, err := s.jobs()
	if err != nil {
		return surface.ChatResult{}, err
	}
	if _, err := s.Store.Agent(ctx, agent); err != nil {
		return surface.ChatResult{}, err
	}
	return j.Chat(ctx, app, agent, text, timeout)
}

// Message leaves a note the agent reads at its next turn.
func (s *Service) Message(ctx context.Context, app, agent, text string) error {
	j, err := s.jobs()
	if err != nil {
		return err
	}
	if _, err := s.Store.Agent(ctx, agent); err != nil {
		return err
	}
	return j.Note(ctx, app, agent, text)
}

// PostJob posts work; the queue chooses the agent.
func (s *Service) PostJob(ctx context.Context, app, title, text string) (surface.Job, error) {
	j, err := s.jobs()
	if err != nil {
		return surface.Job{}, err
	}
	return j.Post(ctx, app, title, text)
}

// Jobs lists an app's jobs, newest first.
func (s *Service) Jobs(ctx context.Context, app string, limit int) ([]surface.Job, error) {
	j, err := s.jobs()
	if err != nil {
		return nil, err
	}
	return j.List(ctx, app, cmp.Or(min(max(limit, 0), 200), 20))
}

// Job is one job.
func (s *Service) Job(ctx context.Context, id string) (surface.Job, error) {
	j, err := s.jobs()
	if err != nil {
		return surface.Job{}, err
	}
	return j.Get(ctx, id)
}

// CancelJob cancels a queued or running job. A request its turn waited on
// is denied, so the owner's buttons close instead of deciding nothing.
func (s *Service) CancelJob(ctx context.Context, id string) (surface.Job, error) {
	j, err := s.jobs()
	if err != nil {
		return surface.Job{}, err
	}
	before, err := j.Get(ctx, id)
	if err != nil {
		return before, err
	}
	got, err := j.Cancel(ctx, id)
	if err != nil || before.Approval == "" || s.Engine == nil {
		return got, err
	}
	_, derr := s.Engine.Withdraw(ctx, before.Approval, before.App)
	if derr != nil && jarvisbot.ErrorCode(derr) != jarvisbot.ECONFLICT && jarvisbot.ErrorCode(derr) != jarvisbot.ENOTFOUND {
		return got, jarvisbot.Errorf(jarvisbot.ErrorCode(derr), "job %s is cancelled, but its approval request %s stays open: %w", id, before.Approval, derr)
	}
	return got, nil
}

// RetryJob queues a failed or cancelled job again.
func (s *Service) RetryJob(ctx context.Context, id string) (surface.Job, error) {
	j, err := s.jobs()
	if err != nil {
		return surface.Job{}, err
	}
	return j.Retry(ctx, id)
}
