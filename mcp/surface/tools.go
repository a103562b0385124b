package surface

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/jarvisbot/jarvisbot"
)

// tool is one tool of the surface: its definition, the scope a key needs
// to see and call it, and what it does.
type tool struct {
	def   mcp.Tool
	scope Scope
	run   func(ctx context.Context, c Caller, req mcp.CallToolRequest) (any, error)
}

// Limits of the arguments the tools take.
const (
	defaultLimit       = 20
	maxLimit           = 200
	defaultChatTimeout = 60 * time.Second
	maxChatTimeout     = 10 * time.Minute
)

// MaxNoteLen is the longest note agent_message takes, in characters: the
// backend refuses a longer one with the same bound (store.MaxNoteLen).
const MaxNoteLen = 4000

// kind says what a tool does, for its annotations.
type kind int

const (
	reads      kind = iota // changes nothing
	writes                 // adds or changes something the owner can undo
	idempotent             // pausing and resuming: twice is once
	destroys               // cancels or overwrites
)

// newTool builds a tool definition with annotations set for what it does.
// openWorld is true for tools whose effect reaches past jarvisbot (an
// agent's turn may use its tools; a note reaches the owner's chat).
func newTool(name, title, desc string, k kind, openWorld bool, params ...mcp.ToolOption) mcp.Tool {
	ann := mcp.ToolAnnotation{
		Title:           title,
		ReadOnlyHint:    mcp.ToBoolPtr(k == reads),
		DestructiveHint: mcp.ToBoolPtr(k == destroys),
		IdempotentHint:  mcp.ToBoolPtr(k == reads || k == idempotent),
		OpenWorldHint:   mcp.ToBoolPtr(openWorld),
	}
	opts := append([]mcp.ToolOption{mcp.WithDescription(desc), mcp.WithToolAnnotation(ann), mcp.WithSchemaAdditionalProperties(false)}, params...)
	return mcp.NewTool(name, opts...)
}

// Parameters several tools share.
var (
	agentParam = mcp.WithString("agent", mcp.Required(), mcp.MinLength(1), mcp.Description("the agent's name, as agents_list gives it"))
	jobParam   = mcp.WithString("id", mcp.Required(), mcp.MinLength(1), mcp.Description("the job's id, as job_post or jobs_list gave it"))
	limitParam = mcp.WithInteger("limit", mcp.Min(1), mcp.Max(maxLimit), mcp.DefaultNumber(defaultLimit), mcp.Description("at most this many, newest first"))
)

// catalog is the 24 tools: discovery (read), work (work) and governance
// (full, but approvals_list: see below). No tool adds MCP servers,
// installs plugins or changes tiers (C4): an app never gets past the
// owner's approval.
func (s *Server) catalog() []*tool {
	b := s.b
	return []*tool{
		// Discovery: a read key sees.
		{scope: ScopeRead, def: newTool("status", "jarvisbot status",
			"jarvisbot at a glance: how many agents, jobs queued and running, approvals waiting for the owner, whether everything is paused, and what the model calls cost today and this month (tokens, dollars, the tool schema tokens the gate kept out).", reads, false),
			run: func(ctx context.Context, _ Caller, _ mcp.CallToolRequest) (any, error) { return b.Status(ctx) }},
		{scope: ScopeRead, def: newTool("agents_list", "List agents",
			"The agents: name, description, focus, and the capabilities each is allowed or blocked.", reads, false),
			run: func(ctx context.Context, _ Caller, _ mcp.CallToolRequest) (any, error) {
				as, err := b.Agents(ctx)
				return map[string]any{"agents": nonNil(as)}, err
			}},
		{scope: ScopeRead, def: newTool("agent_get", "Get an agent",
			"One agent: its focus, allow and block lists, and its recent activity.", reads, false, agentParam),
			run: func(ctx context.Context, _ Caller, req mcp.CallToolRequest) (any, error) {
				var a struct{ Agent string }
				if err := bind(req, &a, "agent"); err != nil {
					return nil, err
				}
				return b.Agent(ctx, a.Agent)
			}},
		{scope: ScopeRead, def: newTool("capabilities_list", "List capabilities",
			"The capabilities jarvisbot's agents can use: id, kind, tier (safe, monitor, ask, never) and state.", reads, false,
			mcp.WithString("kind", mcp.Description("only capabilities of this kind, e.g. mcp, builtin, plugin, cli, skill; all when left out"))),
			run: func(ctx context.Context, _ Caller, req mcp.CallToolRequest) (any, error) {
				var a struct{ Kind string }
				if err := bind(req, &a); err != nil {
					return nil, err
				}
				cs, err := b.Capabilities(ctx, a.Kind)
				return map[string]any{"capabilities": nonNil(cs)}, err
			}},
		{scope: ScopeRead, def: newTool("skills_list", "List skills",
			"The skills: name, description, whether enabled, kind, source and schedule.", reads, false),
			run: func(ctx context.Context, _ Caller, _ mcp.CallToolRequest) (any, error) {
				ss, err := b.Skills(ctx)
				return map[string]any{"skills": nonNil(ss)}, err
			}},
		{scope: ScopeRead, def: newTool("activity_list", "List activity",
			"The activity board, newest first: which agent (or app) used which tool, at what tier, with what outcome.", reads, false,
			mcp.WithString("agent", mcp.Description("only this agent's activity; everyone's when left out")), limitParam),
			run: func(ctx context.Context, _ Caller, req mcp.CallToolRequest) (any, error) {
				var a struct {
					Agent string
					Limit int
				}
				if err := bind(req, &a); err != nil {
					return nil, err
				}
				acts, err := b.Activity(ctx, a.Agent, limit(a.Limit))
				return map[string]any{"activity": nonNil(acts)}, err
			}},
		{scope: ScopeRead, def: newTool("schedule_list", "List the schedule",
			"The scheduled skills: schedule, next run, paused or not, and how the last run went.", reads, false),
			run: func(ctx context.Context, _ Caller, _ mcp.CallToolRequest) (any, error) {
				es, err := b.Schedule(ctx)
				return map[string]any{"schedule": nonNil(es)}, err
			}},
		{scope: ScopeRead, def: newTool("chat_history", "Chat history",
			"This app's conversation with an agent (through agent_chat and agent_message), oldest first.", reads, false, agentParam, limitParam),
			run: func(ctx context.Context, c Caller, req mcp.CallToolRequest) (any, error) {
				var a struct {
					Agent string
					Limit int
				}
				if err := bind(req, &a, "agent"); err != nil {
					return nil, err
				}
				ms, err := b.ChatHistory(ctx, c.App, a.Agent, limit(a.Limit))
				return map[string]any{"agent": a.Agent, "messages": nonNil(ms)}, err
			}},
		// Approvals waiting are something to see, and the status already
		// counts them: a read key lists them; answering one needs full.
		{scope: ScopeRead, def: newTool("approvals_list", "List approvals",
			"Approval requests waiting for the owner: id, tool, what it would do, which agent asked, and when it expires.", reads, false),
			run: func(ctx context.Context, _ Caller, _ mcp.CallToolRequest) (any, error) {
				as, err := b.Approvals(ctx)
				return map[string]any{"approvals": nonNil(as)}, err
			}},

		// Work: a work key also talks to agents, posts jobs and runs
		// scheduled skills.
		{scope: ScopeWork, def: newTool("agent_chat", "Chat with an agent",
			"One turn of an agent on this app's conversation with it. Returns status answered (with the reply and the tools it used), waiting_approval (the owner was asked in chat; approval_id says which) or still_running (job_id: follow it with job_get).", writes, true,
			agentParam,
			mcp.WithString("text", mcp.Required(), mcp.MinLength(1), mcp.Description("what to say to the agent")),
			mcp.WithInteger("timeout_seconds", mcp.Min(1), mcp.Max(int(maxChatTimeout/time.Second)), mcp.DefaultNumber(int(defaultChatTimeout/time.Second)),
				mcp.Description("how long to wait for the turn before answering still_running"))),
			run: func(ctx context.Context, c Caller, req mcp.CallToolRequest) (any, error) {
				var a struct {
					Agent          string
					Text           string
					TimeoutSeconds int `json:"timeout_seconds"`
				}
				if err := bind(req, &a, "agent", "text"); err != nil {
					return nil, err
				}
				timeout := defaultChatTimeout
				if a.TimeoutSeconds != 0 {
					timeout = time.Duration(a.TimeoutSeconds) * time.Second
				}
				if timeout < time.Second || timeout > maxChatTimeout {
					return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "agent_chat: timeout_seconds is %d; give 1 to %d", a.TimeoutSeconds, int(maxChatTimeout/time.Second))
				}
				return b.Chat(ctx, c.App, a.Agent, a.Text, timeout)
			}},
		{scope: ScopeWork, def: newTool("agent_message", "Leave an agent a note",
			fmt.Sprintf("Leave a note the agent reads at its next turn, without starting one. The agent reads it as data from this app, quoted, not as instructions; at most %d characters.", MaxNoteLen), writes, false,
			agentParam, mcp.WithString("text", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(MaxNoteLen), mcp.Description(fmt.Sprintf("the note, at most %d characters", MaxNoteLen)))),
			run: func(ctx context.Context, c Caller, req mcp.CallToolRequest) (any, error) {
				var a struct{ Agent, Text string }
				if err := bind(req, &a, "agent", "text"); err != nil {
					return nil, err
				}
				if err := b.Message(ctx, c.App, a.Agent, a.Text); err != nil {
					return nil, err
				}
				return map[string]any{"agent": a.Agent, "left": true}, nil
			}},
		{scope: ScopeWork, def: newTool("agent_create", "Create an agent",
			"Create an agent from a name and a description; its focus is computed from the description, as for jarvisbot agents add. It gets the default tiers; none can be given here.", writes, false,
			mcp.WithString("name", mcp.Required(), mcp.MinLength(1), mcp.Description("a short name: letters, digits, dashes")),
			mcp.WithString("description", mcp.Required(), mcp.MinLength(1), mcp.Description("what the agent is for, in a sentence"))),
			run: func(ctx context.Context, _ Caller, req mcp.CallToolRequest) (any, error) {
				var a struct{ Name, Description string }
				if err := bind(req, &a, "name", "description"); err != nil {
					return nil, err
				}
				return b.CreateAgent(ctx, a.Name, a.Description)
			}},
		{scope: ScopeWork, def: newTool("job_post", "Post a job",
			"Post a piece of work without naming who does it: jarvisbot picks the agent whose focus and skills fit best (the default agent when none does) and says why. Follow it with job_get.", writes, true,
			mcp.WithString("text", mcp.Required(), mcp.MinLength(1), mcp.Description("the work to do, as you would say it to a person")),
			mcp.WithString("title", mcp.Description("a short title for lists"))),
			run: func(ctx context.Context, c Caller, req mcp.CallToolRequest) (any, error) {
				var a struct{ Text, Title string }
				if err := bind(req, &a, "text"); err != nil {
					return nil, err
				}
				return b.PostJob(ctx, c.App, a.Title, a.Text)
			}},
		{scope: ScopeWork, def: newTool("jobs_list", "List jobs",
			"The jobs this app posted, newest first, with their state.", reads, false, limitParam),
			run: func(ctx context.Context, c Caller, req mcp.CallToolRequest) (any, error) {
				var a struct{ Limit int }
				if err := bind(req, &a); err != nil {
					return nil, err
				}
				js, err := b.Jobs(ctx, c.App, limit(a.Limit))
				return map[string]any{"jobs": nonNil(js)}, err
			}},
		{scope: ScopeWork, def: newTool("job_get", "Get a job",
			"One job this app posted: state (queued, running, waiting_approval, done, failed, cancelled), the agent doing it, why that agent was chosen, and the result.", reads, false, jobParam),
			run: func(ctx context.Context, c Caller, req mcp.CallToolRequest) (any, error) {
				return s.ownJob(ctx, c, req, "job_get")
			}},
		{scope: ScopeWork, def: newTool("job_cancel", "Cancel a job",
			"Cancel a job this app posted that has not finished.", destroys, false, jobParam),
			run: func(ctx context.Context, c Caller, req mcp.CallToolRequest) (any, error) {
				j, err := s.ownJob(ctx, c, req, "job_cancel")
				if err != nil {
					return nil, err
				}
				return b.CancelJob(ctx, j.ID)
			}},
		{scope: ScopeWork, def: newTool("job_retry", "Retry a job",
			"Run a failed or cancelled job this app posted again.", writes, true, jobParam),
			run: func(ctx context.Context, c Caller, req mcp.CallToolRequest) (any, error) {
				j, err := s.ownJob(ctx, c, req, "job_retry")
				if err != nil {
					return nil, err
				}
				return b.RetryJob(ctx, j.ID)
			}},
		{scope: ScopeWork, def: newTool("schedule_run", "Run a scheduled skill now",
			"Run a scheduled skill now, as its schedule would; the report goes where the schedule sends it. A skill the owner paused does not run until the owner resumes it.", writes, true,
			mcp.WithString("skill", mcp.Required(), mcp.MinLength(1), mcp.Description("the skill's name, as schedule_list gives it"))),
			run: func(ctx context.Context, _ Caller, req mcp.CallToolRequest) (any, error) {
				var a struct{ Skill string }
				if err := bind(req, &a, "skill"); err != nil {
					return nil, err
				}
				out, err := b.RunSchedule(ctx, a.Skill)
				return map[string]any{"skill": a.Skill, "result": out}, err
			}},
		{scope: ScopeWork, def: newTool("notify_owner", "Notify the owner",
			"Post a message to the owner's main chat, marked as from this app and shown as plain text: no formatting, addresses and commands shown without links, control and invisible characters as escapes. "+
				"Up to 1,500 characters (as shown; an emoji counts as two) go as one message; a longer text, up to 1 MiB, goes as one text file.", writes, true,
			mcp.WithString("text", mcp.Required(), mcp.MinLength(1), mcp.Description("the message, plain text"))),
			run: func(ctx context.Context, c Caller, req mcp.CallToolRequest) (any, error) {
				var a struct{ Text string }
				if err := bind(req, &a, "text"); err != nil {
					return nil, err
				}
				if err := b.NotifyOwner(ctx, c.App, a.Text); err != nil {
					return nil, err
				}
				return map[string]any{"sent": true}, nil
			}},

		// Governance: a full key also answers approvals and pauses
		// everything.
		{scope: ScopeFull, def: newTool("approval_resolve", "Answer an approval",
			"Approve or deny a waiting approval request once, as the owner's buttons would, under this app's name. No app answers a request raised in a turn that held its words: its job, its chat, or a note it left.", writes, true,
			mcp.WithString("id", mcp.Required(), mcp.MinLength(1), mcp.Description("the approval's id, as approvals_list gives it")),
			mcp.WithString("decision", mcp.Required(), mcp.Enum("approve", "deny"), mcp.Description("approve or deny"))),
			run: func(ctx context.Context, c Caller, req mcp.CallToolRequest) (any, error) {
				var a struct{ ID, Decision string }
				if err := bind(req, &a, "id", "decision"); err != nil {
					return nil, err
				}
				if a.Decision != "approve" && a.Decision != "deny" {
					return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "approval_resolve: decision is %q; give approve or deny", a.Decision)
				}
				ap, err := b.Approval(ctx, a.ID)
				if err != nil {
					return nil, err
				}
				if (ap.App != "" && ap.App == c.App) || slices.Contains(ap.Apps, c.App) {
					return nil, jarvisbot.Errorf(jarvisbot.EFORBIDDEN, "approval %s was raised in a turn that held app %s's words (its job, chat or note): no app resolves an approval its own request raised; the owner decides with the buttons in chat", a.ID, c.App)
				}
				return b.ResolveApproval(ctx, c.App, a.ID, a.Decision == "approve")
			}},
		{scope: ScopeFull, def: newTool("pause_all", "Pause everything",
			"Pause jarvisbot: no agent starts a turn until resume_all (turns in progress finish).", idempotent, false),
			run: func(ctx context.Context, c Caller, _ mcp.CallToolRequest) (any, error) {
				if err := b.Pause(ctx, c.App); err != nil {
					return nil, err
				}
				return map[string]any{"paused": true}, nil
			}},
		{scope: ScopeFull, def: newTool("resume_all", "Resume everything",
			"Resume after pause_all: agents start turns again.", idempotent, false),
			run: func(ctx context.Context, c Caller, _ mcp.CallToolRequest) (any, error) {
				if err := b.Resume(ctx, c.App); err != nil {
					return nil, err
				}
				return map[string]any{"paused": false}, nil
			}},
		{scope: ScopeFull, def: newTool("export", "Export the setup",
			"Export agents, skills, MCP servers and schedules as JSON, for import elsewhere. Never secrets, keys or history: a setting that is not a ${NAME} reference reads [withheld], and withheld lists them.", reads, false),
			run: func(ctx context.Context, _ Caller, _ mcp.CallToolRequest) (any, error) {
				raw, err := b.Export(ctx)
				if err != nil {
					return nil, err
				}
				if t := strings.TrimSpace(string(raw)); !strings.HasPrefix(t, "{") {
					return map[string]any{"export": raw}, nil
				}
				return raw, nil
			}},
		{scope: ScopeFull, def: newTool("import", "Import a setup",
			"Import agents, skill switches and schedule pauses from an export; what exists is skipped. MCP servers, plugins, tiers and agents' allow lists are never imported over MCP: the owner sets those. All or nothing: when any part is refused, nothing is added. dry_run says what would happen, refusals included, without doing it.", writes, false,
			mcp.WithObject("data", mcp.Required(), mcp.Description("the JSON object export returned")),
			mcp.WithBoolean("dry_run", mcp.DefaultBool(false), mcp.Description("only report what would be added and skipped"))),
			run: func(ctx context.Context, _ Caller, req mcp.CallToolRequest) (any, error) {
				var a struct {
					Data   json.RawMessage
					DryRun bool `json:"dry_run"`
				}
				if err := bind(req, &a, "data"); err != nil {
					return nil, err
				}
				data, refused, err := importable(a.Data)
				if err != nil {
					return nil, err
				}
				rep, err := b.Import(ctx, data, a.DryRun)
				if err != nil {
					return nil, err
				}
				rep.DryRun = a.DryRun
				rep.Added = nonNil(rep.Added)
				rep.Skipped = append(nonNil(rep.Skipped), refused...)
				return rep, nil
			}},
	}
}

// ownJob reads the job the call names and checks it is the caller's: an
// app sees and changes the jobs it posted (a job's text and result are
// that app's business); a full key, the owner's reach, any job.
func (s *Server) ownJob(ctx context.Context, c Caller, req mcp.CallToolRequest, name string) (Job, error) {
	var a struct{ ID string }
	if err := bind(req, &a, "id"); err != nil {
		return Job{}, err
	}
	j, err := s.b.Job(ctx, a.ID)
	if err != nil {
		return Job{}, err
	}
	if c.Scope != ScopeFull && j.App != c.App {
		// Said as not found: another app's job ids are not this app's to learn.
		return Job{}, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "%s: app %s posted no job %s; jobs_list gives this app's jobs", name, c.App, a.ID)
	}
	return j, nil
}

// importSections are the sections of an export that import passes on.
// Every other section is left out with its reason: an app adds no MCP
// servers, installs no plugins and changes no tiers (C4).
var importSections = map[string]bool{"agents": true, "skills": true, "schedules": true}

// refusedSections say why a section of an export is not imported.
var refusedSections = map[string]string{
	"mcp_servers": "an app adds no MCP servers; the owner adds them with jarvisbot mcp add",
	"mcp":         "an app adds no MCP servers; the owner adds them with jarvisbot mcp add",
	"plugins":     "an app installs no plugins; the owner installs them with jarvisbot plugins install",
	"tiers":       "an app changes no tiers; the owner sets them in the config",
}

// importable keeps the sections of an export that import may take and
// says why each other section is left out. Plain values (a version, the
// export's date) pass as they are.
func importable(data json.RawMessage) (json.RawMessage, []string, error) {
	// Some clients send an object argument as a string of JSON.
	var text string
	if json.Unmarshal(data, &text) == nil {
		data = json.RawMessage(text)
	}
	var sections map[string]json.RawMessage
	if err := json.Unmarshal(data, &sections); err != nil || sections == nil {
		return nil, nil, jarvisbot.Errorf(jarvisbot.EINVALID, "import: data is not the JSON object export returns")
	}
	var refused []string
	for name, v := range sections {
		if importSections[name] || !composite(v) {
			continue
		}
		why, ok := refusedSections[name]
		if !ok {
			why = "import takes agents, skills and schedules only"
		}
		refused = append(refused, fmt.Sprintf("%s: not imported: %s", name, why))
		delete(sections, name)
	}
	slices.Sort(refused)
	kept, err := json.Marshal(sections)
	if err != nil {
		return nil, nil, jarvisbot.Errorf(jarvisbot.EINTERNAL, "import: the data cannot be written back as JSON: %w", err)
	}
	return kept, refused, nil
}

// composite reports whether v is an object or an array.
func composite(v json.RawMessage) bool {
	t := strings.TrimSpace(string(v))
	return strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")
}

// bind decodes a call's arguments into dst (fields match arguments by
// name, case-insensitively, or by json tag) and checks the required ones
// are there and not blank.
func bind(req mcp.CallToolRequest, dst any, required ...string) error {
	name := req.Params.Name
	args := req.GetArguments()
	if raw := req.GetRawArguments(); raw != nil && args == nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: the arguments are not a JSON object", name)
	}
	for _, r := range required {
		v, ok := args[r]
		if s, isStr := v.(string); !ok || v == nil || (isStr && strings.TrimSpace(s) == "") {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: %s is missing; see the tool's input schema", name, r)
		}
	}
	if len(args) == 0 {
		return nil
	}
	if err := req.BindArguments(dst); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: the arguments do not fit the tool's input schema: %v", name, err)
	}
	return nil
}

// limit is the number of entries a list tool returns.
func limit(n int) int {
	switch {
	case n <= 0:
		return defaultLimit
	case n > maxLimit:
		return maxLimit
	}
	return n
}

// nonNil makes an empty list JSON [] rather than null, which models read
// more reliably as "none".
func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}
