// Package agents is the agent runtime (A1-A3): one turn takes the message,
// the conversation's history, the skills that match it (S3, S4) and the
// tools the catalog resolves for the agent (C3), and runs the model's
// tool-use loop. Every call is checked before it runs (offered this turn,
// never on the never-list, arguments valid against the tool's schema) and
// run by its tier (C2): safe runs, monitor runs and goes on the activity
// board, ask waits for the owner's approval. Every message, call, result
// and decision is stored, so a turn whose model call failed can be retried.
//
// A gate miss is not the end of a turn (C8): the stable prompt lists the
// services and skills the agent may use, and a call that asks for a service
// (catalog.Output.Services: builtin:skills' "tools", or a plugin's manual)
// lets its tools join from the next model call on, appended after those
// sent before and resolved through the turn's own plan.
//
// Tools run behind one seam, the Runner (exec.go; C2, C3, A1, A2): each
// kind of tool (MCP, CLI, the wiki, the skillbook, the next builtin)
// registers a runner in the Runners the runtime is built with, and the
// runtime makes every check, applies the deadline and records the outcome
// the same way for all of them, knowing none of their kinds.
package agents

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents/approvals"
	"github.com/jarvisbot/jarvisbot/agents/attachments"
	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
)

// Store is what the runtime keeps.
type Store interface {
	store.Agents
	store.Messages
	store.ActivityLog
}

// Model is the provider of one agent with its settings.
type Model struct {
	Provider  llm.Provider
	MaxTokens int // default 4096
	MaxSteps  int // default 12
	// Delegate, when set, runs the whole turn instead of the model loop
	// (a coding CLI, M5): Provider, MaxTokens and MaxSteps are then unused.
	Delegate Delegate
	// Images says the model takes images (provider.images, else known by
	// its family): a photo is sent to it, else answered without a call.
	Images bool
}

// Runtime runs turns. It is safe for concurrent use by different chats;
// the channels keep one turn at a time per chat.
type Runtime struct {
	Catalog   func() *catalog.View
	Store     Store
	Approvals *approvals.Engine
	// Runners run the calls that pass the checks, by capability id or
	// kind; a call with no runner is answered with an error result.
	Runners Runners
	// CallTimeout bounds a call whose runner keeps no deadline of its own
	// (see Timed); default one minute (M2).
	CallTimeout time.Duration
	// Model returns the model of an agent; an error says what to set.
	Model func(agent string) (Model, error)
	// Skills returns the ranker over the skills enabled for an agent; nil
	// means no skills.
	Skills func(ctx context.Context, agent string) (*skills.Ranker, error)
	// Servers, when set, lets a turn wait for an MCP server that its
	// message wants and that is still starting (see Turn.Offline).
	Servers Starter
	// Prefer, when set, tells how the owner breaks a tie between two
	// services of one kind (C5): the one marked preferred, else the one
	// used last. The turn decides ties as `route` explains them.
	Prefer func(ctx context.Context, v *catalog.View) (*catalog.Preferences, error)
	Log    *slog.Logger
	Clock  clock.Clock
	// HistoryTokens bounds the history sent with a turn (bytes/4 estimate);
	// default 24000.
	HistoryTokens int
	// Notes, when set, holds the notes apps leave for an agent
	// (agent_message, M4): those unread when a turn starts enter it, once.
	Notes NoteTaker
	// Sessions, when set, keeps the session a delegate left in each chat
	// (M5), so its next turn there resumes it; nil starts every delegate
	// turn afresh.
	Sessions store.DelegateSessions
	// Observer, when set, hears each turn, tool call and offer, for an
	// operator's metrics (observe.go).
	Observer Observer
	// Usage, when set, records every model call with its tokens and the
	// turn's tool figures (usage.go, A5).
	Usage UsageRecorder
	// Budget, when set, may stop a turn before its first model call
	// (budget.go, A5).
	Budget Budget
	// Learner, when set, keeps the words the gate learns from a turn that
	// recovered a miss (learn.go, C9); nil learns nothing.
	Learner Learner
	// LearnFromAll lets turns of apps and scheduled runs teach the gate
	// too; by default only the owner's own messages do.
	LearnFromAll bool
	// Conversations, when set, keeps where each agent's conversation in a
	// chat begins (/new) and its running summary: a long chat is
	// summarised after its turns instead of dropped (conversation.go, A6).
	// Nil sends the newest messages of the whole chat.
	Conversations store.Conversations
	// Files, when set, keeps the photos and documents the owner sends
	// (files.go, CH4); nil keeps none.
	Files *attachments.Keeper
	// FileIndex, when set, makes the documents' text searchable.
	FileIndex FileIndex

	schemas schemaCache
	bg      background
}

// Starter tells when MCP servers that are starting have answered.
type Starter interface {
	// WaitStarted waits, bounded by the servers' start deadline, until
	// none of the named servers is still starting, and returns their states.
	WaitStarted(ctx context.Context, servers []string) []mcphost.Status
	// Warm starts those of the named servers that idle (their tools are
	// known, their process ended), without waiting.
	Warm(servers []string)
}

// NoteTaker gives an agent's unread notes, oldest first, marking them read
// (store.Notes).
type NoteTaker interface {
	TakeNotes(ctx context.Context, agent string) ([]store.Note, error)
}

// Input is one message to answer.
type Input struct {
	Agent string
	Chat  string // the conversation, e.g. "telegram:123" or "console"
	Text  string
	// Retry says the message's turn may have begun before a restart: when
	// the history ends with this message and what its turn stored, the
	// turn goes on from there (an answer already written is returned
	// without another model call) instead of storing the message again.
	Retry bool
	// Voice says the owner spoke the message (a transcribed voice note,
	// V1): only a voice-marked skill may take the turn over from it; the
	// others join or are offered as for text.
	Voice bool
	// App names the app whose job or chat (agent_chat, job_post) the turn
	// answers, "" for the owner's own message: the text is stored and sent
	// marked as that app's, the turn's approval requests are that app's,
	// and its calls go on the activity board for it (X5).
	App string
	// Schedule names the scheduled skill whose run the turn is, "" for a
	// message: the usage record says what caused the turn.
	Schedule string

	// File is a photo, image or document the owner sent with the message
	// (CH4), nil for none; Text is then its caption.
	File *store.IncomingFile

	// note is the short note of File the stored message carries
	// (files.go), set once at the start of the turn.
	note string
	// apps are the apps whose words the turn holds: App and those whose
	// notes entered it. None may decide the turn's requests (X5).
	apps []string
	// summary marks the model call that rewrites a conversation's
	// summary, for the usage record.
	summary bool
}

// ErrAwaitingApproval is returned (wrapped with the context's error) by a
// turn that stopped while a call waited for the owner's approval: the
// pending request carries the turn from here, and after a restart the
// owner's decision continues it (Continue), so it must not be retried.
var ErrAwaitingApproval = errors.New("the turn waits for the owner's approval")

// Result is a finished turn.
type Result struct {
	Text  string
	Steps int
	Calls []CallRecord
	// Tools are the capability ids the model was offered, in order.
	Tools []string
	// Skills are the skills that entered the turn.
	Skills []string
	Usage  llm.Usage
}

// CallRecord is one tool call of a turn and what came of it.
type CallRecord struct {
	Tool    string // capability id, or the wire name the model used when it matches none
	Tier    catalog.Tier
	Outcome string // "ok", "error: …", "refused: …", "denied", "expired"; "approved" for a delegate's own tool, which the CLI runs
}

const (
	defaultMaxSteps  = 12
	defaultMaxTokens = 4096
	defaultHistory   = 24000
)

func (r *Runtime) log() *slog.Logger {
	if r.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return r.Log
}

func (r *Runtime) now() time.Time {
	if r.Clock == nil {
		return time.Now()
	}
	return r.Clock.Now()
}

// Turn answers one message (A2).
func (r *Runtime) Turn(ctx context.Context, in Input) (res Result, err error) {
	defer r.observeTurn(ctx, in.Agent, time.Now(), &err)
	if err := r.allowed(ctx, in); err != nil {
		return Result{}, err
	}
	in.note = r.fileNote(ctx, in)
	if in.Retry {
		if res, begun, err := r.retry(ctx, in); begun {
			return res, err
		}
	}
	// The message is stored first: whatever fails later, it is kept and
	// the turn can be retried.
	if err := r.save(ctx, in, llm.Message{Role: llm.RoleUser, Text: asked(in)}); err != nil {
		return Result{}, err
	}
	st, err := r.prepare(ctx, in, nil)
	if err != nil {
		return st.res, err
	}
	res, err = r.answer(ctx, st)
	if err == nil {
		r.learn(ctx, st)
		// Only a turn run whole here is judged: one resumed after a
		// restart or an approval lacks the calls made before.
		r.judge(ctx, st)
		r.summarise(st)
	}
	return res, err
}

// answer runs a prepared turn to its answer: on the model's delegate when
// it has one (M5), else in the model's tool-use loop.
func (r *Runtime) answer(ctx context.Context, st *turnState) (Result, error) {
	if st.refusal != "" {
		// Said without a model call, and stored: the next turn knows the
		// file was not seen.
		if err := r.save(ctx, st.in, llm.Message{Role: llm.RoleAssistant, Text: st.refusal}); err != nil {
			return st.res, err
		}
		st.res.Text = st.refusal
		return st.res, nil
	}
	if st.model.Delegate != nil {
		return r.delegate(ctx, st)
	}
	return r.loop(ctx, st)
}

// retry goes on with a turn that began before a restart, when the chat's
// history ends with its message and what the turn stored after it. begun
// is false when the turn never stored its message: it starts afresh.
func (r *Runtime) retry(ctx context.Context, in Input) (Result, bool, error) {
	stored, err := r.Store.History(ctx, in.Chat, 50)
	if err != nil {
		return Result{}, true, err
	}
	at, text := lastAsked(stored)
	if at < 0 || text != asked(in) {
		return Result{}, false, nil // its turn never stored it, or another message came after
	}
	// The last thing its turn stored says where it stopped.
	var last llm.Message
	if at < len(stored)-1 {
		if err := json.Unmarshal(stored[len(stored)-1].Content, &last); err != nil {
			return Result{}, true, fmt.Errorf("reading the last message of chat %s: %w", in.Chat, err)
		}
	}
	// An answer already written is the answer.
	if last.Role == llm.RoleAssistant && len(last.ToolCalls) == 0 {
		return Result{Text: last.Text}, true, nil
	}
	// Calls that wait for the owner's decision: the pending request
	// carries the turn, and the decision continues it (Continue). So does
	// a decision pressed since, whose Continue is on its way. Running
	// them again would ask the owner a second time.
	if last.Role == llm.RoleAssistant && r.Approvals != nil {
		carrying, err := r.Approvals.CarryingIn(ctx, in.Chat)
		if err != nil {
			return Result{}, true, err
		}
		for _, a := range carrying {
			for _, c := range last.ToolCalls {
				if cp, ok := r.Catalog().Capability(a.Tool); ok && llm.WireName(cp.ID) == c.Name && callKey(a.Tool, a.Args) == callKey(cp.ID, unwrapString(c.Input)) {
					return Result{}, true, fmt.Errorf("%w: request %s", ErrAwaitingApproval, a.ID)
				}
			}
		}
	}
	st, err := r.prepare(ctx, in, pendingServers(r.Catalog(), stored))
	if err != nil {
		return st.res, true, err
	}
	res, err := r.answer(ctx, st)
	return res, true, err
}

// turnState is a turn between model calls.
type turnState struct {
	in      Input
	agent   string
	model   Model
	req     llm.Request
	offered *offer
	// plan is the agent's resolution for this turn: what the model asks
	// for joins through it (C8), under the same grant and deny.
	plan    *catalog.Plan
	res     Result
	decided map[string]store.Approval // approvals taken while the turn was not running
	// refusal answers the turn without a model call: its file cannot be
	// shown to this model, or read (files.go).
	refusal string
	// recovered are the servers whose tools joined the turn because the
	// model asked for them (C8): what the gate missed (learn.go).
	recovered map[string]bool
	// askedSkills are the skills whose instructions the model asked for
	// by name (the skills tool's use) and got; entered are those the
	// scorer brought, enabled every skill the turn could draw on
	// (learn.go).
	askedSkills []string
	entered     []entered
	enabled     []*skills.Skill
	// learnedOffers are the servers the gate offered on words it learned,
	// with those words (learn.go).
	learnedOffers []learnedOffer
	// mu guards offered, plan, req.Tools and res while calls run: a
	// delegate makes its calls concurrently (Runtime.delegate).
	mu sync.Mutex
}

// said is what the model wrote beside the calls it is making now, the
// agent's own words on why (an approval request shows its first line);
// "" when it wrote nothing or the turn's last message is not the model's.
func (st *turnState) said() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	if n := len(st.req.Messages); n > 0 && st.req.Messages[n-1].Role == llm.RoleAssistant {
		return st.req.Messages[n-1].Text
	}
	return ""
}

// prepare resolves the turn's tools, skills and history. need names MCP
// servers the turn needs whatever its words say (a resumed turn's calls).
func (r *Runtime) prepare(ctx context.Context, in Input, need []string) (*turnState, error) {
	st := &turnState{in: in}
	st.in.apps = withApps(slices.Clone(in.apps), in.App)
	ag, err := r.Store.Agent(ctx, in.Agent)
	if err != nil {
		return st, err
	}
	st.agent = ag.Name
	if st.model, err = r.Model(ag.Name); err != nil {
		return st, err
	}
	if st.model.MaxSteps <= 0 {
		st.model.MaxSteps = defaultMaxSteps
	}
	if st.model.MaxTokens <= 0 {
		st.model.MaxTokens = defaultMaxTokens
	}
	view := r.Catalog()
	plan := view.Plan(catalog.Policy{Agent: ag.Name, Allow: ag.Allow, Block: ag.Block, Focus: ag.Focus})
	var prefer *catalog.Preferences
	if r.Prefer != nil {
		// Read only when a tie needs breaking; a failed read breaks none.
		prefer = catalog.Lazy(func() *catalog.Preferences {
			p, err := r.Prefer(ctx, view)
			if err != nil {
				r.log().Warn("reading the owner's preferences; the tie stays", "err", err)
				return nil
			}
			return p
		})
	}
	entering, manuals, enabled, err := r.matchSkills(ctx, ag.Name, in.Text, in.Voice, prefer)
	if err != nil {
		return st, err
	}
	t := catalog.Turn{Prefer: prefer}
	plan.Turn(in.Text, &t, manuals...)
	var absent string
	want := append(t.Offline(manuals...), offline(view, need)...)
	slices.Sort(want)
	if want = slices.Compact(want); len(want) > 0 && r.Servers != nil {
		// A server the message wants is not connected (yet): wait for it
		// while it starts, then plan again on what is connected now.
		r.log().Info("waiting for MCP servers this turn wants", "servers", strings.Join(want, ","), "chat", in.Chat)
		for _, s := range r.Servers.WaitStarted(ctx, want) {
			if s.State != mcphost.StateUp {
				absent += notUp(s)
			}
		}
		view = r.Catalog()
		plan = view.Plan(catalog.Policy{Agent: ag.Name, Allow: ag.Allow, Block: ag.Block, Focus: ag.Focus})
		plan.Turn(in.Text, &t, manuals...)
	}
	st.plan = plan
	for i := range t.Decisions {
		if d := &t.Decisions[i]; d.Offered {
			if ws := d.LearnedEvidence(); len(ws) > 0 {
				st.learnedOffers = append(st.learnedOffers, learnedOffer{server: d.Server, words: ws})
			}
		}
	}
	st.offered = newOffer(t.Tools, func(tools []*catalog.Capability) []*catalog.Capability {
		return r.withSchemas(ctx, st, tools)
	})
	r.warm(t.Tools)
	r.observer().Offered(len(t.Tools))
	for _, cp := range t.Tools {
		st.res.Tools = append(st.res.Tools, cp.ID)
	}
	for _, s := range entering {
		st.res.Skills = append(st.res.Skills, "skill:"+s.skill.Name)
	}
	st.entered, st.enabled = entering, enabled
	st.req = llm.Request{
		System:      systemPrompt(ag, plan, enabled),
		SystemExtra: strings.TrimSpace(skillsPrompt(entering) + absent),
		CachedTools: len(plan.Prefix()),
		MaxTokens:   st.model.MaxTokens,
	}
	// A resumed turn's calls were offered before the restart, maybe on the
	// model's request (C8): their servers join again, under the same plan.
	r.join(ctx, st, need, false)
	conv, err := r.conversation(ctx, in.Chat, ag.Name)
	if err != nil {
		return st, err
	}
	if st.req.Messages, err = r.history(ctx, in.Chat, ag.Name, conv.From()); err != nil {
		return st, err
	}
	if note := summaryNote(conv); note != "" {
		st.req.SystemExtra = strings.TrimSpace(st.req.SystemExtra + "\n\n" + note)
	}
	r.attach(ctx, st)
	st.in.apps = withApps(st.in.apps, r.notes(ctx, st)...)
	return st, nil
}

// join lets the tools of the named services join the turn from the next
// model call on (C8), appended after what the turn offers already, so the
// list sent before stays its prefix and the provider's cache keeps it. The
// tools come through the turn's plan: only what the agent may have. It
// returns, for the model, what came of each name: the tools that joined,
// or why none did. A server that is still starting is waited for, as a
// server the message wants is (prepare).
func (r *Runtime) join(ctx context.Context, st *turnState, names []string, recovery bool) string {
	var b strings.Builder
	for _, name := range names {
		tools, err := st.plan.Requested(name)
		if starting := st.plan.RequestedOffline(name); err != nil && len(starting) > 0 && r.Servers != nil {
			r.log().Info("waiting for MCP servers the model asked for", "servers", strings.Join(starting, ","), "chat", st.in.Chat)
			r.Servers.WaitStarted(ctx, starting)
			st.plan = r.Catalog().Plan(st.plan.Policy())
			tools, err = st.plan.Requested(name)
		}
		if err != nil {
			fmt.Fprintf(&b, "\n\n[jarvisbot] %v.", strings.TrimSuffix(err.Error(), "."))
			continue
		}
		added := st.offered.add(tools)
		if len(added) == 0 {
			if len(tools) > 0 {
				fmt.Fprintf(&b, "\n\n[jarvisbot] The tools of %s are already yours in this turn.", name)
			}
			continue
		}
		wire := make([]string, len(added))
		for i, cp := range added {
			wire[i] = llm.WireName(cp.ID)
			st.res.Tools = append(st.res.Tools, cp.ID)
			if recovery && cp.Server != "" {
				if st.recovered == nil {
					st.recovered = map[string]bool{}
				}
				st.recovered[cp.Server] = true
			}
		}
		r.warm(added)
		fmt.Fprintf(&b, "\n\n[jarvisbot] The tools of %s are yours from your next step on: %s.", name, strings.Join(wire, ", "))
	}
	st.req.Tools = st.offered.wire
	return b.String()
}

// loop runs model calls and tool calls until the model answers.
func (r *Runtime) loop(ctx context.Context, st *turnState) (Result, error) {
	res := &st.res
	for step := 1; step <= st.model.MaxSteps; step++ {
		// A turn resumed after a restart starts with calls to answer.
		if n := len(st.req.Messages); n > 0 && st.req.Messages[n-1].Role == llm.RoleAssistant && len(st.req.Messages[n-1].ToolCalls) > 0 {
			if err := r.answerCalls(ctx, st, st.req.Messages[n-1].ToolCalls); err != nil {
				return *res, err
			}
		}
		res.Steps = step
		began := time.Now()
		resp, err := st.model.Provider.Complete(ctx, st.req)
		r.recordCall(ctx, st, resp, err, time.Since(began))
		if err != nil {
			r.log().Warn("model call failed", "agent", st.agent, "chat", st.in.Chat, "err", err)
			return *res, err
		}
		res.Usage.InputTokens += resp.Usage.InputTokens
		res.Usage.OutputTokens += resp.Usage.OutputTokens
		res.Usage.CacheReadTokens += resp.Usage.CacheReadTokens
		res.Usage.CacheWriteTokens += resp.Usage.CacheWriteTokens
		am := llm.Message{Role: llm.RoleAssistant, Text: resp.Text, ToolCalls: resp.ToolCalls}
		if err := r.save(ctx, st.in, am); err != nil {
			return *res, err
		}
		st.req.Messages = append(st.req.Messages, am)
		if len(resp.ToolCalls) == 0 {
			res.Text = resp.Text
			return *res, nil
		}
		if err := r.answerCalls(ctx, st, resp.ToolCalls); err != nil {
			return *res, err
		}
	}
	res.Text = fmt.Sprintf("I stopped after %d steps without finishing; tell me how to go on, or ask for less at once.", st.model.MaxSteps)
	return *res, nil
}

// answerCalls runs one assistant message's calls and stores the results.
// When the turn's context ends while a call waits for approval (the
// service stops), nothing is stored: the request stays pending and
// Continue picks the turn up after the restart.
func (r *Runtime) answerCalls(ctx context.Context, st *turnState, calls []llm.ToolCall) error {
	results, records := r.runCalls(ctx, st, calls)
	for _, rec := range records {
		if rec.Outcome == outcomeAwaiting {
			// Nothing of this step is stored: the pending request carries
			// the turn, and its decision continues it (Continue).
			return fmt.Errorf("%w: %w", ErrAwaitingApproval, cmp.Or(ctx.Err(), approvals.ErrClosed))
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	st.res.Calls = append(st.res.Calls, records...)
	um := llm.Message{Role: llm.RoleUser, ToolResults: results}
	if err := r.save(ctx, st.in, um); err != nil {
		return err
	}
	st.req.Messages = append(st.req.Messages, um)
	return nil
}

// Continue resumes a turn whose ask-tier call was decided while the turn
// was not running, after a restart: the decided call runs (or is refused)
// as if the turn had waited, the other calls of that step run by their
// tiers, and the model goes on. The answer goes back to the chat the
// request came from, which the caller delivers.
func (r *Runtime) Continue(ctx context.Context, a store.Approval) (res Result, err error) {
	defer r.observeTurn(ctx, a.Agent, time.Now(), &err)
	if r.Approvals != nil {
		r.Approvals.TakeUp(a.ID)
	}
	stored, err := r.Store.History(ctx, a.Chat, 50)
	if err != nil {
		return Result{}, err
	}
	// The turn's message is the last user text before the pending calls;
	// an app's is that app's again, and the apps whose words the turn held
	// when it asked stay its apps.
	_, text := lastAsked(stored)
	app, appText, byApp := AppText(text)
	if byApp {
		text = appText
	}
	need := pendingServers(r.Catalog(), stored)
	if cp, ok := r.Catalog().Capability(a.Tool); ok && cp.Server != "" {
		need = append(need, cp.Server)
	}
	st, err := r.prepare(ctx, Input{Agent: a.Agent, Chat: a.Chat, Text: text, App: app, apps: a.Apps}, need)
	if err != nil {
		return st.res, err
	}
	n := len(st.req.Messages)
	if n == 0 || st.req.Messages[n-1].Role != llm.RoleAssistant || len(st.req.Messages[n-1].ToolCalls) == 0 {
		return r.late(ctx, st, a)
	}
	st.decided = map[string]store.Approval{callKey(a.Tool, a.Args): a}
	res, err = r.answer(ctx, st)
	if err == nil {
		r.learn(ctx, st)
		r.summarise(st)
	}
	return res, err
}

// late carries out a decision on a call whose turn the conversation has
// left behind (the owner wrote again before deciding): the call runs (or
// not) as decided, and the model is told what came of it and tells the
// owner.
func (r *Runtime) late(ctx context.Context, st *turnState, a store.Approval) (Result, error) {
	if _, _, ok := delegateTool(a.Tool); ok {
		return r.lateOwnTool(ctx, st, a)
	}
	cp, ok := r.Catalog().Capability(a.Tool)
	if !ok || !cp.Connected {
		return st.res, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s, which the owner decided on, is not available now", a.Tool)
	}
	call := llm.ToolCall{ID: "decided-" + a.ID, Name: llm.WireName(cp.ID), Input: json.RawMessage(a.Args)}
	res, outcome, joined := r.decided(ctx, st.in, cp, call, a)
	st.askedSkills = append(st.askedSkills, joined.skills...)
	st.res.Calls = append(st.res.Calls, CallRecord{Tool: cp.ID, Tier: catalog.TierAsk, Outcome: outcome})
	r.observeCalls(st.agent, st.res.Calls[len(st.res.Calls)-1:])
	note := llm.Message{Role: llm.RoleUser, Text: fmt.Sprintf("[jarvisbot] %s has now decided on an earlier request of yours: %s (%s). Outcome: %s. What the tool said:\n%s%s\n\nTell the owner briefly what came of it.",
		decider(a), a.Summary, a.Tool, outcome, res.Content, r.join(ctx, st, joined.services, true))}
	if err := r.save(ctx, st.in, note); err != nil {
		return st.res, err
	}
	st.req.Messages = append(st.req.Messages, note)
	return r.answer(ctx, st)
}

// lastAsked finds the last message the owner wrote in stored history (a
// user message with text, not tool results): its index, -1 when there is
// none, and its text.
func lastAsked(stored []store.Message) (int, string) {
	for i := len(stored) - 1; i >= 0; i-- {
		var m llm.Message
		if json.Unmarshal(stored[i].Content, &m) == nil && m.Role == llm.RoleUser && m.Text != "" && len(m.ToolResults) == 0 {
			return i, m.Text
		}
	}
	return -1, ""
}

// warm starts the idle servers of the offered tools while the model
// thinks, so that a first call does not wait for a process to start.
func (r *Runtime) warm(tools []*catalog.Capability) {
	if r.Servers == nil {
		return
	}
	var names []string
	for _, cp := range tools {
		if cp.Server != "" && !slices.Contains(names, cp.Server) {
			names = append(names, cp.Server)
		}
	}
	if len(names) > 0 {
		r.Servers.Warm(names)
	}
}

// offline returns those of the named servers that are in the view but not
// connected.
func offline(v *catalog.View, names []string) []string {
	var out []string
	for _, n := range names {
		if s, ok := v.Server(n); ok && !s.Connected {
			out = append(out, n)
		}
	}
	return out
}

// pendingServers names the MCP servers of the calls that the last stored
// assistant message left unanswered.
func pendingServers(v *catalog.View, stored []store.Message) []string {
	for i := len(stored) - 1; i >= 0; i-- {
		var m llm.Message
		if json.Unmarshal(stored[i].Content, &m) != nil {
			continue
		}
		if m.Role != llm.RoleAssistant {
			return nil
		}
		var out []string
		for _, c := range m.ToolCalls {
			for _, cp := range v.Capabilities() {
				if cp.Server != "" && llm.WireName(cp.ID) == c.Name && !slices.Contains(out, cp.Server) {
					out = append(out, cp.Server)
				}
			}
		}
		return out
	}
	return nil
}

// notUp tells the model that a server the request wants is not up, so
// that the answer can say so rather than pretend the tools do not exist.
func notUp(s mcphost.Status) string {
	why := "it is still starting"
	if s.Err != nil {
		why = fmt.Sprintf("it is not answering (%v); jarvisbot keeps reconnecting", s.Err)
	}
	return fmt.Sprintf("\n\nThe MCP server %s, which this request may need, is not up: %s. Its tools are not available in this turn; if the request needs them, tell the owner that %s is not up yet.", s.Name, why, s.Name)
}

// callKey names a call by its tool and arguments, whatever their spacing
// or key order: the approval keeps the arguments as the model sent them,
// the history as they were stored, and a decision taken after a restart
// must find its call in either form, or the owner would be asked again.
func callKey(tool string, args json.RawMessage) string {
	var v any
	if json.Unmarshal(args, &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			args = b
		}
	}
	return tool + "\x00" + string(args)
}

// entered is a skill that enters a turn, with how, and the words learned
// for it that the message says (C9).
type entered struct {
	skill   *skills.Skill
	entry   skills.Entry
	learned []string
}

// matchSkills ranks the agent's enabled skills for msg: the skills that
// enter the turn, the plugin whose manual leads (its servers may come with
// it), and every enabled skill, which the stable prompt lists. A spoken
// message is taken over only by a voice-marked skill (V1).
func (r *Runtime) matchSkills(ctx context.Context, agent, msg string, voice bool, prefer *catalog.Preferences) ([]entered, []string, []*skills.Skill, error) {
	if r.Skills == nil {
		return nil, nil, nil, nil
	}
	rk, err := r.Skills(ctx, agent)
	if err != nil || rk == nil {
		return nil, nil, nil, err
	}
	ms := rk.Rank(msg, nil)
	if voice {
		skills.Spoken(ms)
	}
	var out []entered
	var manuals []string
	lead, tie := skills.ManualTie(ms, prefer)
	if lead != "" {
		manuals = []string{lead}
	}
	for _, m := range ms {
		if m.Entry != skills.EntryTakeOver && m.Entry != skills.EntryJoin || skills.LostTie(m, tie) {
			continue
		}
		if len(out) < 3 { // a turn's instructions stay short
			out = append(out, entered{m.Skill, m.Entry, m.Learned})
		}
	}
	return out, manuals, rk.Skills(), nil
}

func (r *Runtime) save(ctx context.Context, in Input, m llm.Message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, err = r.Store.AppendMessage(ctx, store.Message{Chat: in.Chat, Agent: in.Agent, Role: m.Role, Content: b, CreatedAt: r.now()})
	return err
}

// offer maps the wire names of one turn's tools back to capabilities.
type offer struct {
	byWire map[string]*catalog.Capability
	wire   []llm.Tool
	// schemas puts in place the input schemas that stored lists keep out
	// of memory (catalog.View.WithSchemas), for the tools about to be
	// offered.
	schemas func([]*catalog.Capability) []*catalog.Capability
}

func newOffer(tools []*catalog.Capability, schemas func([]*catalog.Capability) []*catalog.Capability) *offer {
	o := &offer{byWire: make(map[string]*catalog.Capability, len(tools)), wire: make([]llm.Tool, 0, len(tools)), schemas: schemas}
	o.add(tools)
	return o
}

// add appends the tools not offered yet, after the others, and returns
// them, their schemas in place: the model is offered them, and a call is
// checked against them.
func (o *offer) add(tools []*catalog.Capability) []*catalog.Capability {
	var added []*catalog.Capability
	fresh := map[string]bool{}
	for _, cp := range tools {
		name := llm.WireName(cp.ID)
		if _, ok := o.byWire[name]; ok || fresh[name] {
			continue
		}
		fresh[name] = true
		added = append(added, cp)
	}
	if o.schemas != nil {
		added = o.schemas(added)
	}
	for _, cp := range added {
		name := llm.WireName(cp.ID)
		o.byWire[name] = cp
		o.wire = append(o.wire, llm.Tool{Name: name, Description: cp.Description, Schema: cp.InputSchema})
	}
	return added
}

// withSchemas is the turn's plan's View.WithSchemas: a list that cannot
// be read again leaves its tools offered with a schema that takes any
// arguments, and says so in the log.
func (r *Runtime) withSchemas(ctx context.Context, st *turnState, tools []*catalog.Capability) []*catalog.Capability {
	out, err := st.plan.WithSchemas(ctx, tools)
	if err != nil {
		r.log().Warn("tools offered without their input schema", "chat", st.in.Chat, "err", err)
	}
	return out
}

// runCalls runs one step's tool calls: safe and monitor calls at once,
// ask calls one after another (each waits for the owner). Results keep the
// model's order.
func (r *Runtime) runCalls(ctx context.Context, st *turnState, calls []llm.ToolCall) ([]llm.ToolResult, []CallRecord) {
	in, agent, o := st.in, st.agent, st.offered
	results := make([]llm.ToolResult, len(calls))
	records := make([]CallRecord, len(calls))
	asked := make([]wants, len(calls)) // the services and skills each call asked for (C8)
	var wg sync.WaitGroup
	var asks []int
	for i := range calls {
		calls[i].Input = unwrapString(calls[i].Input)
	}
	cps := make([]*catalog.Capability, len(calls))
	for i, c := range calls {
		st.mu.Lock()
		cp, tier, refusal := r.check(o, c)
		st.mu.Unlock()
		cps[i] = cp
		records[i] = CallRecord{Tool: c.Name, Tier: tier}
		if cp != nil {
			records[i].Tool = cp.ID
		}
		if refusal != "" {
			results[i] = llm.ToolResult{CallID: c.ID, Content: refusal, IsError: true}
			records[i].Outcome = "refused: " + refusal
			r.log().Warn("tool call refused", "agent", agent, "tool", c.Name, "why", refusal)
			continue
		}
		if tier == catalog.TierAsk {
			asks = append(asks, i)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], records[i].Outcome, asked[i] = r.run(ctx, in, cp, tier, c)
		}()
	}
	wg.Wait()
	for _, i := range asks {
		results[i], records[i].Outcome, asked[i] = r.ask(ctx, st, cps[i], calls[i])
	}
	// In the calls' order, so that a turn's tool list does not depend on
	// which call finished first.
	st.mu.Lock()
	defer st.mu.Unlock()
	for i := range calls {
		if len(asked[i].services) > 0 {
			results[i].Content += r.join(ctx, st, asked[i].services, true)
		}
		st.askedSkills = append(st.askedSkills, asked[i].skills...)
	}
	r.observeCalls(st.agent, records)
	return results, records
}

// check decides whether a call may run at all, and at which tier.
func (r *Runtime) check(o *offer, c llm.ToolCall) (*catalog.Capability, catalog.Tier, string) {
	cp, ok := o.byWire[c.Name]
	if !ok {
		parts := strings.Split(c.Name, "__")
		if catalog.OnNeverList(c.Name) || catalog.OnNeverList(parts[len(parts)-1]) {
			return nil, "", fmt.Sprintf("%s is never available to an agent", c.Name)
		}
		return nil, "", fmt.Sprintf("%s was not offered in this turn; use only the tools you were given", c.Name)
	}
	if catalog.OnNeverList(cp.Name) || catalog.OnNeverList(cp.Tool) {
		return cp, "", fmt.Sprintf("%s is never available to an agent", cp.ID)
	}
	if !isObject(c.Input) {
		return cp, "", fmt.Sprintf("the arguments for %s are not valid JSON; send one JSON object matching its schema", cp.ID)
	}
	if why := r.schemas.validate(cp, c.Input); why != "" {
		return cp, "", fmt.Sprintf("the arguments for %s do not match its schema: %s", cp.ID, why)
	}
	return cp, tierOf(cp, c.Input), ""
}

// unwrapString undoes arguments sent as a JSON string holding the object,
// which some models and providers do.
func unwrapString(args json.RawMessage) json.RawMessage {
	var s string
	if json.Unmarshal(args, &s) == nil && isObject(json.RawMessage(s)) {
		return json.RawMessage(s)
	}
	return args
}

// isObject reports whether args is one JSON object.
func isObject(args json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(args, &m) == nil && m != nil
}

// tierOf is the call's tier: a tool with per-action tiers (the wiki) is
// judged by the action it was asked for; an unknown action by the tool's.
func tierOf(cp *catalog.Capability, args json.RawMessage) catalog.Tier {
	if len(cp.ActionTiers) > 0 {
		var a struct {
			Action string `json:"action"`
		}
		if json.Unmarshal(args, &a) == nil {
			if t, ok := cp.ActionTiers[strings.ToLower(strings.TrimSpace(a.Action))]; ok {
				return t
			}
		}
	}
	if cp.Tier == "" {
		return catalog.TierMonitor
	}
	return cp.Tier
}

// wants are the services and skills a call that ran asked for
// (catalog.Output.Services and Skills).
type wants struct{ services, skills []string }

// run executes a call that may run, recording monitor and approved calls
// on the activity board. It returns the result, the outcome, and what the
// call asked for.
func (r *Runtime) run(ctx context.Context, in Input, cp *catalog.Capability, tier catalog.Tier, c llm.ToolCall) (llm.ToolResult, string, wants) {
	start := r.now()
	began := time.Now()
	out, err := r.execute(ctx, catalog.Call{Cap: cp, Args: c.Input, Agent: in.Agent, Chat: in.Chat})
	took := time.Since(began)
	outcome := "ok"
	res := llm.ToolResult{CallID: c.ID, Content: out.Text, IsError: out.IsError}
	switch {
	case err != nil:
		outcome = "error: " + err.Error()
		res = llm.ToolResult{CallID: c.ID, Content: err.Error(), IsError: true}
	case out.IsError:
		outcome = "tool error"
	}
	if tier != catalog.TierSafe {
		r.record(ctx, in, store.Activity{At: start, Agent: in.Agent, Tool: cp.ID, Tier: string(tier), Args: argSummary(c.Input), Outcome: outcome, Duration: took})
	}
	if err != nil {
		return res, outcome, wants{}
	}
	return res, outcome, wants{services: out.Services, skills: out.Skills}
}

// record puts a call on the activity board. The call has happened, so
// neither a cancelled turn nor a failing store undoes it: the entry is
// written past the turn's cancellation, and an entry the store refuses is
// logged with what it was about, for the owner to find what the board
// misses. The turn goes on either way; its answer matters more.
func (r *Runtime) record(ctx context.Context, in Input, a store.Activity) {
	a.App = cmp.Or(a.App, in.App)
	if err := r.Store.RecordActivity(context.WithoutCancel(ctx), a); err != nil {
		r.log().Error("a tool call is missing from the activity board: it could not be recorded",
			"agent", a.Agent, "chat", in.Chat, "tool", a.Tool, "tier", a.Tier, "outcome", a.Outcome, "at", a.At, "err", err)
	}
}

// ask waits for the owner's decision on an ask-tier call.
func (r *Runtime) ask(ctx context.Context, st *turnState, cp *catalog.Capability, c llm.ToolCall) (llm.ToolResult, string, wants) {
	in := st.in
	if a, ok := st.decided[callKey(cp.ID, c.Input)]; ok {
		return r.decided(ctx, in, cp, c, a)
	}
	if r.Approvals == nil {
		return llm.ToolResult{CallID: c.ID, Content: cp.ID + " needs the owner's approval, and no approvals are possible here", IsError: true}, "refused: no approvals", wants{}
	}
	req := approvals.Request{Tool: cp.ID, Summary: r.approvalSummary(ctx, in, cp, c.Input, st.said()), Args: c.Input, Agent: in.Agent, Chat: in.Chat, Apps: in.apps}
	a, err := r.Approvals.Ask(ctx, req)
	if err == nil && a.State == store.ApprovalPending {
		if a, err = r.Approvals.Wait(ctx, a.ID); err != nil && (ctx.Err() != nil || errors.Is(err, approvals.ErrClosed)) {
			// The request is stored and pending: it carries the turn on.
			return llm.ToolResult{CallID: c.ID, Content: "the turn was cancelled while waiting for approval", IsError: true}, outcomeAwaiting, wants{}
		}
	}
	if errors.Is(err, approvals.ErrCarriedElsewhere) {
		// The replica that claimed the decision runs the call (once) and
		// answers the owner; this turn only must not run it too.
		return llm.ToolResult{CallID: c.ID, Content: "Another jarvisbot replica carried out the owner's decision on this request. Do not run it again; say only that it is being handled.", IsError: true}, outcomeCarriedElsewhere, wants{}
	}
	if err != nil {
		if ctx.Err() != nil {
			return llm.ToolResult{CallID: c.ID, Content: "the turn was cancelled before the approval was asked", IsError: true}, "cancelled", wants{}
		}
		return llm.ToolResult{CallID: c.ID, Content: "the approval could not be asked: " + err.Error(), IsError: true}, "error: " + err.Error(), wants{}
	}
	return r.decided(ctx, in, cp, c, a)
}

// outcomeAwaiting is the outcome of an ask-tier call whose turn stopped
// while the owner had not decided yet.
const outcomeAwaiting = "cancelled while waiting for approval"

// outcomeCarriedElsewhere is the outcome of an ask-tier call whose
// decision another replica claimed first (ST2).
const outcomeCarriedElsewhere = "carried out by another replica"

// decided answers a call by its approval's outcome.
func (r *Runtime) decided(ctx context.Context, in Input, cp *catalog.Capability, c llm.ToolCall, a store.Approval) (llm.ToolResult, string, wants) {
	switch a.State {
	case store.ApprovalApproved:
		return r.run(ctx, in, cp, catalog.TierAsk, c)
	case store.ApprovalExpired:
		r.record(ctx, in, store.Activity{At: r.now(), Agent: in.Agent, Tool: cp.ID, Tier: string(catalog.TierAsk), Args: argSummary(c.Input), Outcome: "expired"})
		return llm.ToolResult{CallID: c.ID, Content: "The owner did not answer the approval request in time, so it was denied. Do not retry unless the owner asks.", IsError: true}, "expired", wants{}
	}
	r.record(ctx, in, store.Activity{At: r.now(), Agent: in.Agent, Tool: cp.ID, Tier: string(catalog.TierAsk), Args: argSummary(c.Input), Outcome: "denied"})
	return llm.ToolResult{CallID: c.ID, Content: decider(a) + " denied this action. Do not retry it; say what you would have done instead.", IsError: true}, "denied", wants{}
}

// argSummary is a short one-line view of the arguments.
func argSummary(args json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil || len(m) == 0 {
		return ""
	}
	b, _ := json.Marshal(m)
	s := string(b)
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}
