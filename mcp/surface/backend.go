// Package surface is jarvisbot as an MCP server for other apps (SPEC M4):
// the 24 tools an app sees (discovery, work, governance), each allowed to
// a scope (read, work, full) of the app's key, over streamable HTTP with a
// bearer key per request, and the stdio bridge for clients that launch a
// command. It decides what an app may ask; what the answer is comes from a
// Backend, the running service.
package surface

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/appkey"
)

// Scope is what an app's key allows. It is declared with the key, which
// the app layer makes without knowing the surface.
type Scope = appkey.Scope

// The scopes, each including the one before.
const (
	ScopeRead = appkey.ScopeRead // sees
	ScopeWork = appkey.ScopeWork // also talks to agents, posts jobs, runs scheduled skills
	ScopeFull = appkey.ScopeFull // also answers approvals and pauses everything
)

// Caller is the app a request comes from, as its key says.
type Caller struct {
	App   string
	Scope Scope
}

// Status is the service at a glance.
type Status struct {
	Agents           int    `json:"agents"`
	JobsQueued       int    `json:"jobs_queued"`
	JobsRunning      int    `json:"jobs_running"`
	PendingApprovals int    `json:"pending_approvals"`
	Paused           bool   `json:"paused"`
	PausedBy         string `json:"paused_by,omitempty"`
	// Usage is what the model calls cost today and this month; absent
	// when the record cannot be read.
	Usage *Usage `json:"usage,omitempty"`
}

// Usage is the model calls of today and of this month (the owner's time
// zone), with this month's agents by cost.
type Usage struct {
	Today     UsageFigures `json:"today"`
	Month     UsageFigures `json:"month"`
	TopAgents []AgentSpend `json:"top_agents,omitempty"`
}

// UsageFigures are the sums over a period's model calls. CostUSD covers the
// calls whose model has a price; UnpricedCalls counts the others. The gate's
// saving is the share of tool schema tokens it kept out of the calls.
type UsageFigures struct {
	Calls            int     `json:"calls"`
	FailedCalls      int     `json:"failed_calls"`
	InputTokens      int     `json:"input_tokens"`
	OutputTokens     int     `json:"output_tokens"`
	CacheReadTokens  int     `json:"cache_read_tokens"`
	CacheWriteTokens int     `json:"cache_write_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	UnpricedCalls    int     `json:"unpriced_calls"`
	ToolTokensSent   int     `json:"tool_schema_tokens_sent"`
	CatalogTokens    int     `json:"tool_schema_tokens_without_gate"`
	GateSaved        float64 `json:"gate_saved"`
}

// AgentSpend is one agent's calls and cost.
type AgentSpend struct {
	Agent   string  `json:"agent"`
	Calls   int     `json:"calls"`
	CostUSD float64 `json:"cost_usd"`
}

// Agent is an agent as an app sees it.
type Agent struct {
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Focus       []string   `json:"focus,omitempty"`
	Allow       []string   `json:"allow,omitempty"`
	Block       []string   `json:"block,omitempty"`
	Recent      []Activity `json:"recent_activity,omitempty"` // agent_get only
}

// Capability is one catalog entry.
type Capability struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	Tier  string `json:"tier"`
	State string `json:"state"` // connected, not connected, never-list
}

// Skill is one skill with its switch.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Enabled     bool   `json:"enabled"`
	// Off says why a skill is off: "switched off" (the owner's switch) or
	// "plugin not installed"; "" when it is on.
	Off      string `json:"off,omitempty"`
	Kind     string `json:"kind"`
	Source   string `json:"source"`
	Schedule string `json:"schedule,omitempty"`
}

// Activity is one entry of the activity board.
type Activity struct {
	At    time.Time `json:"at"`
	Agent string    `json:"agent"`
	// App is the app whose job or chat the call served, "" for the
	// owner's own turns.
	App      string `json:"app,omitempty"`
	Tool     string `json:"tool"`
	Tier     string `json:"tier"`
	Args     string `json:"args,omitempty"`
	Outcome  string `json:"outcome"`
	Duration string `json:"duration,omitempty"`
}

// ScheduleEntry is a scheduled skill.
type ScheduleEntry struct {
	Skill    string    `json:"skill"`
	Schedule string    `json:"schedule"`
	Next     time.Time `json:"next"`
	Paused   bool      `json:"paused"`
	Last     string    `json:"last,omitempty"` // "2026-12-03 07:00 ok, report sent"
}

// ChatMessage is one message of an agent's conversation with an app.
type ChatMessage struct {
	Role string    `json:"role"` // user, assistant
	Text string    `json:"text"`
	At   time.Time `json:"at"`
}

// The outcomes of agent_chat.
const (
	ChatAnswered        = "answered"
	ChatWaitingApproval = "waiting_approval"
	ChatStillRunning    = "still_running"
)

// ChatResult is what one agent_chat turn came to within its timeout.
type ChatResult struct {
	Status   string   `json:"status"` // ChatAnswered, ChatWaitingApproval, ChatStillRunning
	Reply    string   `json:"reply,omitempty"`
	Tools    []string `json:"tools_used,omitempty"`
	Approval string   `json:"approval_id,omitempty"`
	Job      string   `json:"job_id,omitempty"`
}

// Job is a piece of work posted by an app.
type Job struct {
	ID       string    `json:"id"`
	App      string    `json:"app"`
	Title    string    `json:"title,omitempty"`
	Text     string    `json:"text"`
	State    string    `json:"state"` // queued, running, waiting_approval, done, failed, cancelled
	Agent    string    `json:"agent"`
	Why      string    `json:"why"` // why this agent was chosen
	Result   string    `json:"result,omitempty"`
	Error    string    `json:"error,omitempty"`
	Approval string    `json:"approval_id,omitempty"`
	Created  time.Time `json:"created"`
	Finished time.Time `json:"finished,omitzero"`
}

// Approval is a pending (or decided) approval request.
type Approval struct {
	ID      string    `json:"id"`
	Tool    string    `json:"tool"`
	Summary string    `json:"summary"`
	Agent   string    `json:"agent"`
	State   string    `json:"state"`
	Expires time.Time `json:"expires"`
	// App is the app whose request raised it, "" for the owner's own
	// chats: no app resolves one its own request raised.
	App string `json:"app,omitempty"`
	// Apps are every app whose words were in the turn that raised it: App
	// and the apps whose notes the turn read (X5). None of them resolves
	// it.
	Apps []string `json:"apps,omitempty"`
	// DecidedBy says who decided: "owner", "app NAME", or "" while pending
	// or when it expired.
	DecidedBy string `json:"decided_by,omitempty"`
}

// ImportReport says what an import did or, dry, would do.
type ImportReport struct {
	DryRun  bool     `json:"dry_run"`
	Added   []string `json:"added"`
	Skipped []string `json:"skipped"` // with the reason: "agent reviewer: exists"
	// Refused are the parts that fail the import, with the reason: an
	// import adds all of its parts or, when any is refused, none. A dry
	// run lists them as the import would refuse them.
	Refused []string `json:"refused,omitempty"`
}

// Backend is the running service behind the tools. Errors carry
// jarvisbot codes (ENOTFOUND, EINVALID, ECONFLICT, EFORBIDDEN); their
// messages are shown to the app.
type Backend interface {
	Status(ctx context.Context) (Status, error)
	Agents(ctx context.Context) ([]Agent, error)
	Agent(ctx context.Context, name string) (Agent, error)
	Capabilities(ctx context.Context, kind string) ([]Capability, error)
	Skills(ctx context.Context) ([]Skill, error)
	Activity(ctx context.Context, agent string, limit int) ([]Activity, error)
	Schedule(ctx context.Context) ([]ScheduleEntry, error)
	ChatHistory(ctx context.Context, app, agent string, limit int) ([]ChatMessage, error)

	// Chat runs one turn of agent on the app's conversation with it and
	// waits at most timeout for its outcome.
	Chat(ctx context.Context, app, agent, text string, timeout time.Duration) (ChatResult, error)
	// Message leaves a note the agent reads at its next turn.
	Message(ctx context.Context, app, agent, text string) error
	CreateAgent(ctx context.Context, name, description string) (Agent, error)
	PostJob(ctx context.Context, app, title, text string) (Job, error)
	Jobs(ctx context.Context, app string, limit int) ([]Job, error)
	Job(ctx context.Context, id string) (Job, error)
	CancelJob(ctx context.Context, id string) (Job, error)
	RetryJob(ctx context.Context, id string) (Job, error)
	RunSchedule(ctx context.Context, skill string) (string, error)
	// NotifyOwner posts text to the owner's main chat, marked as the
	// app's: at most NoticeMax characters as one message, a longer text
	// (at most NoticeFileMax bytes) as one file.
	NotifyOwner(ctx context.Context, app, text string) error

	Approvals(ctx context.Context) ([]Approval, error)
	Approval(ctx context.Context, id string) (Approval, error)
	// ResolveApproval decides once, through the same engine as the chat
	// buttons; the caller has checked the app may.
	ResolveApproval(ctx context.Context, app, id string, approve bool) (Approval, error)
	Pause(ctx context.Context, app string) error
	Resume(ctx context.Context, app string) error
	Export(ctx context.Context) (json.RawMessage, error)
	Import(ctx context.Context, data json.RawMessage, dryRun bool) (ImportReport, error)

	// Record puts an app's call on the activity board under its name.
	Record(ctx context.Context, app, tool, outcome string, took time.Duration)
}

// Keys checks an app's key: the caller it stands for, or an error with
// code EFORBIDDEN (unknown or revoked key) or EUNAVAILABLE (rate limit:
// the message says when to try again).
type Keys interface {
	Check(ctx context.Context, key string) (Caller, error)
}

// RetryAfterError is an optional ability of Keys' rate-limit error
// (EUNAVAILABLE), found with errors.As: how long until the key may ask
// again, for the 429's Retry-After header (Options.RetryAfter otherwise).
type RetryAfterError interface {
	error
	RetryAfter() time.Duration
}

// The bounds of notify_owner (X5), which its description states: a
// notice short enough for one chat message with the app's mark (Discord
// takes 2,000 UTF-16 units; where a channel's own escapes split it, each
// part carries the mark), else one file, not hundreds of messages.
const (
	NoticeMax     = 1500
	NoticeFileMax = 1 << 20
)
