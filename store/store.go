// Package store defines what jarvisbot keeps between runs: the domain types
// and the small interfaces the rest of the program consumes (ST1). It holds no
// implementation and imports nothing but the standard library and the root
// jarvisbot package, so every layer above can depend on it without dragging
// in a database driver.
//
// The implementation is store/sqlstore, the SQL store: one SQLite file in
// the data directory by default (ST1), or a PostgreSQL database when one
// machine is no longer enough (ST2), with the same code and one test
// suite run on both. The error codes documented on each method are part
// of the contract, because the edges (CLI, chat replies) map them to
// messages.
package store

import (
	"context"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
)

// DefaultAgent is the agent every installation has; it answers when no other
// agent is addressed.
const DefaultAgent = "default"

// Agent is a named assistant with its own view of the catalog (A1).
type Agent struct {
	Name        string
	Description string
	// Allow and Block are capability ids or patterns the owner set for this
	// agent; Focus is computed from the description by the catalog (C6).
	Allow, Block, Focus []string
	// Provider is the model the agent runs on when the owner chose one for
	// it (claude-code, codex, anthropic, openai); "" for the
	// installation's (A3, M5).
	Provider string
	// CreatedAt and UpdatedAt are set by the store; values passed in are ignored.
	CreatedAt, UpdatedAt time.Time
}

// Agents stores agents by name.
type Agents interface {
	// Agent returns the named agent, or an ENOTFOUND error.
	Agent(ctx context.Context, name string) (Agent, error)
	// Agents returns every agent sorted by name.
	Agents(ctx context.Context) ([]Agent, error)
	// CreateAgent adds a new agent: ECONFLICT if the name is taken, EINVALID
	// if the name is not valid (see names.ValidAgent).
	CreateAgent(ctx context.Context, a Agent) error
	// UpdateAgent replaces description, allow, block and focus of an existing
	// agent, or returns ENOTFOUND.
	UpdateAgent(ctx context.Context, a Agent) error
	// DeleteAgent removes the named agent, or returns ENOTFOUND.
	DeleteAgent(ctx context.Context, name string) error
}

// SkillSwitches keeps each skill's on/off switch (S5). A skill with no
// recorded switch is in its default state, which the skills engine knows.
type SkillSwitches interface {
	// SetSkillEnabled records the owner's switch for a skill id ("skill:humanizer").
	SetSkillEnabled(ctx context.Context, skill string, enabled bool) error
	// SkillSwitches returns every recorded switch by skill id.
	SkillSwitches(ctx context.Context) (map[string]bool, error)
	// ClearSkillSwitch forgets the owner's switch: the skill returns to its
	// default. Clearing a skill with no switch is not an error.
	ClearSkillSwitch(ctx context.Context, skill string) error
}

// PluginState is where an installed plugin stands (P2-P4).
type PluginState string

// The states of an installed plugin.
const (
	// PluginInstalled: installed, its manual's words are on; its sign-in or
	// server connection has not been made yet.
	PluginInstalled PluginState = "installed"
	// PluginConnected: signed in and connected.
	PluginConnected PluginState = "connected"
	// PluginNeedsAttention: the sign-in expired or was revoked; its tools
	// and words are off until it is renewed (P4).
	PluginNeedsAttention PluginState = "needs-attention"
)

// InstalledPlugin is the owner's record of a store plugin.
type InstalledPlugin struct {
	Name  string
	State PluginState
	// InstalledAt and UpdatedAt are set by the store.
	InstalledAt, UpdatedAt time.Time
}

// Plugins records which store plugins the owner installed.
type Plugins interface {
	// InstallPlugin records a plugin: ECONFLICT if it is installed already.
	InstallPlugin(ctx context.Context, name string, state PluginState) error
	// InstalledPlugin returns the record of a plugin, or ENOTFOUND.
	InstalledPlugin(ctx context.Context, name string) (InstalledPlugin, error)
	// InstalledPlugins returns every installed plugin sorted by name.
	InstalledPlugins(ctx context.Context) ([]InstalledPlugin, error)
	// SetPluginState changes an installed plugin's state, or returns ENOTFOUND.
	SetPluginState(ctx context.Context, name string, state PluginState) error
	// RemovePlugin forgets an installed plugin, or returns ENOTFOUND.
	RemovePlugin(ctx context.Context, name string) error
}

// SkillOrigin says how a skill came into the owner's folder.
type SkillOrigin string

// The recorded origins; a skill the owner wrote has no record.
const (
	SkillImported SkillOrigin = "imported" // installed from a SKILL.md of another app (S6)
	SkillPromoted SkillOrigin = "promoted" // written by an agent, made global (S7)
)

// SkillRecord is where a skill of the owner's folder came from.
type SkillRecord struct {
	Skill  string // "skill:NAME"
	Origin SkillOrigin
	Source string // the path or URL it was installed from, or the agent that wrote it
	// Dropped lists the fields that were not honoured, as "field: reason".
	Dropped    []string
	RecordedAt time.Time // set by the store
}

// SkillRecords keeps the origin of imported and promoted skills.
type SkillRecords interface {
	// RecordSkill stores or replaces a skill's record.
	RecordSkill(ctx context.Context, r SkillRecord) error
	// SkillRecord returns a skill's record, or ENOTFOUND.
	SkillRecord(ctx context.Context, skill string) (SkillRecord, error)
	// ForgetSkill removes a skill's record; a skill without one is not an error.
	ForgetSkill(ctx context.Context, skill string) error
}

// MCPServer is an MCP server the owner added (M1).
type MCPServer struct {
	Name      string
	Transport string // "stdio", "streamable-http" or "sse"
	Command   string
	Args      []string
	Env       map[string]string // values may be ${NAME} references
	Cwd       string
	URL       string
	Headers   map[string]string // values may be ${NAME} references
	Timeout   time.Duration     // per tool call; 0 means the default
	Trusted   bool
	Enabled   bool
	Plugin    string
	// Tools is the server's last tools/list, as JSON, for explaining turns
	// without starting the server.
	Tools string
	// Instructions is what the server said at initialize, kept for its
	// derived usage card when the server is not running (C5).
	Instructions string
	// Secrets names the keyring entries jarvisbot made for this server
	// (literal credentials moved out of its settings); removing the server
	// deletes those nothing else refers to.
	Secrets []string
	// Problem, set by the store, says why a stored row could not be read
	// whole (a hand edit, a damaged file). Such a server is returned
	// switched off: it can be listed and removed, never started.
	Problem string
	// CreatedAt and UpdatedAt are set by the store.
	CreatedAt, UpdatedAt time.Time
}

// MCPServers stores the owner's MCP servers.
type MCPServers interface {
	// AddMCPServer records a new server: ECONFLICT if the name is taken.
	AddMCPServer(ctx context.Context, s MCPServer) error
	// AddMCPServers records several at once, or none of them: ECONFLICT
	// if a name is taken.
	AddMCPServers(ctx context.Context, list []MCPServer) error
	// MCPServer returns a server, or ENOTFOUND.
	MCPServer(ctx context.Context, name string) (MCPServer, error)
	// MCPServers returns every server sorted by name.
	MCPServers(ctx context.Context) ([]MCPServer, error)
	// SetMCPServerEnabled switches a server on or off, or returns ENOTFOUND.
	SetMCPServerEnabled(ctx context.Context, name string, enabled bool) error
	// SetMCPServerTools caches a server's tool list, or returns ENOTFOUND.
	SetMCPServerTools(ctx context.Context, name string, tools []byte) error
	// RemoveMCPServer forgets a server, or returns ENOTFOUND.
	RemoveMCPServer(ctx context.Context, name string) error
}

// MCPInstructions keeps what a server said at initialize.
type MCPInstructions interface {
	// SetMCPServerInstructions records a server's instructions, or
	// returns ENOTFOUND.
	SetMCPServerInstructions(ctx context.Context, name, text string) error
}

// Preference is the owner's mark on a plugin or an MCP server: when two of
// the same kind match a request equally, the one marked last wins (C5).
type Preference struct {
	Kind string // "plugin" or "mcp"
	Name string
	At   time.Time
}

// Preferences keeps the owner's preferred plugins and MCP servers.
type Preferences interface {
	// Prefer marks a plugin or server preferred as of now, again if it
	// was before: the newest mark wins a tie.
	Prefer(ctx context.Context, kind, name string) error
	// Unprefer removes a mark; a name not marked is not an error.
	Unprefer(ctx context.Context, kind, name string) error
	// Preferred returns every mark, newest first.
	Preferred(ctx context.Context) ([]Preference, error)
}

// ToolUse reads, from the activity board, when each tool was last called
// (a call that ran, not one denied or expired): the tie-break between two
// services of one kind falls to the one used last.
type ToolUse interface {
	// LastUsed returns, per capability id, the time of its last call.
	LastUsed(ctx context.Context) (map[string]time.Time, error)
}

// CLITool is a connected command-line program (P5).
type CLITool struct {
	Name        string
	Path        string
	Env         map[string]string // values may be ${NAME} references
	Timeout     time.Duration
	Description string
	CreatedAt   time.Time // set by the store
}

// CLITools stores the connected command-line programs.
type CLITools interface {
	// AddCLITool records a tool: ECONFLICT if the name is taken.
	AddCLITool(ctx context.Context, t CLITool) error
	// CLITools returns every tool sorted by name.
	CLITools(ctx context.Context) ([]CLITool, error)
	// RemoveCLITool forgets a tool, or returns ENOTFOUND.
	RemoveCLITool(ctx context.Context, name string) error
}

// ApprovalState is where an approval request stands.
type ApprovalState string

// The states; only pending changes, and only once.
const (
	ApprovalPending  ApprovalState = "pending"
	ApprovalApproved ApprovalState = "approved"
	ApprovalDenied   ApprovalState = "denied"
	ApprovalExpired  ApprovalState = "expired"
)

// Approval is one request to run an ask-tier tool.
type Approval struct {
	ID      string
	Tool    string // capability id
	Summary string // what will happen, for the owner
	Args    []byte // the call's arguments, JSON
	Agent   string
	Chat    string // the conversation it came from
	// Apps are the apps whose words were in the turn that raised it: the
	// app whose job or chat the turn answers, and those whose notes it
	// read (X5). None of them may decide it; empty for the owner's own.
	Apps                            []string
	State                           ApprovalState
	Always                          bool   // approved "always for this tool"
	DecidedBy                       string // an approver's user id, "app:NAME", "always" or "" (expired)
	CreatedAt, ExpiresAt, DecidedAt time.Time
}

// DeciderApp names the app that decided a request through the MCP surface
// (DecidedBy "app:NAME"), "" when the owner or nobody did.
func (a Approval) DeciderApp() string {
	app, _ := strings.CutPrefix(a.DecidedBy, "app:")
	if app == a.DecidedBy {
		return ""
	}
	return app
}

// Approvals persists approval requests and standing grants.
type Approvals interface {
	// CreateApproval stores a pending request.
	CreateApproval(ctx context.Context, a Approval) error
	// Approval returns a request, or ENOTFOUND.
	Approval(ctx context.Context, id string) (Approval, error)
	// PendingApprovals returns every pending request, oldest first.
	PendingApprovals(ctx context.Context) ([]Approval, error)
	// DecideApproval moves a pending request to state, once: when it is no
	// longer pending it returns the request as it is and ECONFLICT.
	DecideApproval(ctx context.Context, id string, state ApprovalState, by string, always bool, at time.Time) (Approval, error)
	// CarryApproval claims the carrying out of a decided request for by
	// (a process): true for the first claim, false for every later one.
	// Processes sharing the store (ST2) claim before they act on a
	// decision, so a request decided once is also acted on once.
	CarryApproval(ctx context.Context, id, by string) (bool, error)
	// Grant, Granted and Revoke keep "always for this tool".
	Grant(ctx context.Context, tool, by string) error
	Granted(ctx context.Context, tool string) (bool, error)
	Revoke(ctx context.Context, tool string) error
	Grants(ctx context.Context) ([]string, error)
}

// Activity is one entry of the activity board.
type Activity struct {
	At    time.Time
	Agent string
	// App is the app whose job or chat the call served ("" for the
	// owner's own turns), so the board says for whom an agent worked.
	App      string
	Tool     string
	Tier     string
	Args     string // a short summary of the arguments
	Outcome  string // "ok", "error: …", "denied", …
	Duration time.Duration
}

// ActivityLog keeps the activity board.
type ActivityLog interface {
	RecordActivity(ctx context.Context, a Activity) error
	// RecentActivity returns at most limit entries, newest first.
	RecentActivity(ctx context.Context, limit int) ([]Activity, error)
}

// Message is one stored message of a conversation.
type Message struct {
	ID        int64
	Chat      string
	Agent     string
	Role      string
	Content   []byte // the message as JSON
	CreatedAt time.Time
}

// Messages keeps conversations.
type Messages interface {
	// AppendMessage stores a message and returns its id.
	AppendMessage(ctx context.Context, m Message) (int64, error)
	// History returns the chat's last limit messages, oldest first.
	History(ctx context.Context, chat string, limit int) ([]Message, error)
}

// Recall searches everything said (A6): the owner's and the agents'
// messages in every chat, the short text of tool results and the wiki's
// notes, through the store's own full-text index. Words match in their
// English and German inflections ("invoices" finds "invoice", "Termine"
// finds "Termin"); hits come best first.
type Recall interface {
	// Search returns the hits for the words of query within f, best
	// first. A query of function words alone finds nothing.
	Search(ctx context.Context, query string, f RecallFilter) ([]RecallHit, error)
	// Recent returns the latest messages within f, newest first.
	Recent(ctx context.Context, f RecallFilter) ([]RecallHit, error)
}

// RecallFilter narrows a search: one chat ("" for all, wiki notes
// included), a time range (Since inclusive, Until exclusive; zero for
// open) and the most hits (Limit <= 0 means DefaultRecallLimit).
type RecallFilter struct {
	Chat         string
	Since, Until time.Time
	Limit        int
}

// Limits on what one search returns.
const (
	DefaultRecallLimit = 10
	MaxRecallLimit     = 100
)

// What a hit is, and who said it.
const (
	RecallMessage = "message"
	RecallNote    = "note"
	RecallFile    = "file" // a document the owner sent, its text as read

	SaidByOwner = "owner" // the owner's message (a voice note's transcript too)
	SaidByAgent = "agent" // an agent's answer
	SaidByTool  = "tool"  // a tool's result, shortened
	SaidInWiki  = "wiki"  // a wiki note
)

// RecallHit is one thing said that matched. Ref is the message's id or the
// note's name; Snippet is the text around the first matching word, on one
// line; Score is higher for a better match (engines score differently,
// only the order counts).
type RecallHit struct {
	Kind    string    `json:"kind"`
	Ref     string    `json:"ref"`
	Chat    string    `json:"chat,omitempty"`
	Agent   string    `json:"agent,omitempty"`
	Who     string    `json:"who"`
	At      time.Time `json:"at"`
	Snippet string    `json:"snippet"`
	Score   float64   `json:"score"`
}

// RecallProgress is how far the one-time indexing of the history that
// predates the index has come.
type RecallProgress struct {
	Indexed, Total int64
	Done           bool
}

// Conversation is the part of a chat an agent's turns there see: its
// messages after After (those before stay stored and searchable), of
// which the oldest, up to Covered, may be told by Summary instead of word
// for word. Each agent has its own in each chat.
type Conversation struct {
	Chat    string
	Agent   string
	After   int64     // the conversation holds the chat's messages with larger ids; 0 from the first
	BegunAt time.Time // zero for one that never started afresh
	// Summary tells the conversation's messages up to Covered, written by
	// the agent's model when they no longer fit the window.
	Summary      string
	Covered      int64
	SummarizedAt time.Time
}

// From is the id after which the conversation's messages are sent word
// for word: the summary tells those before.
func (c Conversation) From() int64 { return max(c.After, c.Covered) }

// Conversations keeps where each agent's conversation in a chat begins
// and its running summary.
type Conversations interface {
	// Conversation returns the agent's current conversation in the chat;
	// one that never started afresh runs from the first message.
	Conversation(ctx context.Context, chat, agent string) (Conversation, error)
	// NewConversation starts the agent's conversation in the chat afresh,
	// after the chat's last message, and returns it.
	NewConversation(ctx context.Context, chat, agent string, at time.Time) (Conversation, error)
	// SetSummary replaces the summary of the agent's conversation that
	// began after the message after, covering the messages up to covered;
	// ECONFLICT when that conversation is no longer the current one or a
	// summary covering as much was written meanwhile.
	SetSummary(ctx context.Context, chat, agent string, after int64, summary string, covered int64, at time.Time) error
	// MessagesAfter returns the chat's first limit messages of the agent
	// ("" for every agent's) with an id above after and at most upTo (0:
	// no bound), oldest first.
	MessagesAfter(ctx context.Context, chat, agent string, after, upTo int64, limit int) ([]Message, error)
	// ChatConversations lists each agent's conversation in each chat that
	// has messages, the latest spoken in first, at most limit.
	ChatConversations(ctx context.Context, limit int) ([]ChatConversation, error)
}

// ChatAgents keeps the agent the owner switched each chat to (/agent).
type ChatAgents interface {
	// ChatAgent is the agent the chat was switched to, "" for none.
	ChatAgent(ctx context.Context, chat string) (string, error)
	// SetChatAgent switches the chat to agent; "" takes the switch back.
	SetChatAgent(ctx context.Context, chat, agent string, at time.Time) error
	// ChatAgentSwitches are every chat's switch, by chat.
	ChatAgentSwitches(ctx context.Context) (map[string]string, error)
}

// LearnedKind says what learned words are for: a server the gate offers,
// or a skill the scorer ranks. A server and a skill of one name keep their
// own words.
type LearnedKind string

// The kinds of learned words.
const (
	LearnedServer LearnedKind = "server"
	LearnedSkill  LearnedKind = "skill"
)

// LearnedWord is a word learned for a server or a skill from the owner's
// turns.
type LearnedWord struct {
	Kind  LearnedKind
	Name  string // the server or skill
	Word  string // the stem the gate and the scorer index
	Label string // as the owner wrote it
	Turns int    // how many turns taught it
	// Ignored counts the turns since its last use that were offered the
	// server or skill because of it, and used neither.
	Ignored   int
	LearnedAt time.Time
	LastAt    time.Time
	// Chat is the conversation of the last turn that taught it (at
	// LastAt), "" when that is not known.
	Chat string
}

// MaxLearned bounds what one server or skill keeps: the words taught by
// the fewest turns, the oldest first, make room.
const MaxLearned = 24

// MaxIgnored is how many ignored offers since its last use drop a learned
// word (catalog.LearnedWord.Share weighs it less before).
const MaxIgnored = 3

// LearnedWords keeps the words learned for servers and skills.
type LearnedWords interface {
	// LearnWords records words for a server or skill, taught by a turn at
	// at in the chat each word names: a word known already counts one
	// more turn. Each keeps at most MaxLearned.
	LearnWords(ctx context.Context, kind LearnedKind, name string, words []LearnedWord, at time.Time) error
	// LearnedWords are the learned words of every server or every skill,
	// by name, the most taught first.
	LearnedWords(ctx context.Context, kind LearnedKind) (map[string][]LearnedWord, error)
	// ForgetLearned removes one learned word of a server or skill (by its
	// stem or as written), or all of them for word "", and says how many
	// it removed.
	ForgetLearned(ctx context.Context, kind LearnedKind, name, word string) (int, error)
	// IgnoreLearned counts one ignored offer against each of the named
	// words (by stem or as written) of a server or skill, dropping those
	// that reach MaxIgnored, and says how many it dropped.
	IgnoreLearned(ctx context.Context, kind LearnedKind, name string, words []string) (int, error)
	// UsedLearned starts the ignored offers of the named words over: an
	// offer they brought was used.
	UsedLearned(ctx context.Context, kind LearnedKind, name string, words []string) error
}

// ChatConversation is an agent's current conversation in a chat.
type ChatConversation struct {
	Conversation
	Messages int       // the agent's messages in the chat, in all its conversations
	LastAt   time.Time // when its latest message was stored
}

// Undelivered is a reply that could not be sent.
type Undelivered struct {
	ID        int64
	Chat      string
	Text      string
	Error     string
	CreatedAt time.Time
}

// Channels keeps what the chat channels need between runs.
type Channels interface {
	AddOwner(ctx context.Context, user string) error
	Owners(ctx context.Context) ([]string, error)
	// SetApprovalMessage records where a request is drawn; an empty
	// messageID says it is being sent (a crash may leave it so).
	SetApprovalMessage(ctx context.Context, approval, chat, messageID string) error
	// ForgetApprovalMessage drops that record: the prompt could not be sent.
	ForgetApprovalMessage(ctx context.Context, approval, chat string) error
	ApprovalMessages(ctx context.Context, approval string) (map[string]string, error) // chat -> message id
	KeepUndelivered(ctx context.Context, u Undelivered) error
	Undelivered(ctx context.Context) ([]Undelivered, error)
	Delivered(ctx context.Context, id int64) error
}

// Run is one scheduled run of a skill (SC1).
type Run struct {
	ID                    int64
	Skill                 string
	DueAt                 time.Time
	StartedAt, FinishedAt time.Time
	Outcome               string // running, ok, failed, skipped, not-run (it could not start: no model), interrupted (jarvisbot stopped during it), over budget (a budget stopped it)
	Error                 string
	Report                string
	Chat                  string
	Delivery              string // pending, sent, failed, none
	DeliveryError         string
	Attempts              int
}

// ScheduleState is a skill's schedule switches and failure streak.
type ScheduleState struct {
	Skill    string
	Paused   bool
	Failures int
	Alerted  bool
	// ToldNotRun says the owner was told the skill cannot run (no model
	// is configured); it is not repeated until a run starts.
	ToldNotRun bool
}

// ScheduleSpec is a skill's schedule as the scheduler arms it.
type ScheduleSpec struct {
	Skill string
	Spec  string // e.g. "0 7 * * *"
	Zone  string // as the skill names it, "" for the owner's
}

// Schedules keeps scheduled runs.
type Schedules interface {
	// ClaimRun records a run as due before it fires; ECONFLICT when that
	// skill's run for that time exists already (no duplicates).
	ClaimRun(ctx context.Context, r Run) (int64, error)
	UpdateRun(ctx context.Context, r Run) error
	LastRun(ctx context.Context, skill string) (Run, error) // ENOTFOUND when none
	// RunAt returns skill's run due at due; ENOTFOUND when none.
	RunAt(ctx context.Context, skill string, due time.Time) (Run, error)
	Runs(ctx context.Context, skill string, limit int) ([]Run, error)
	UndeliveredRuns(ctx context.Context) ([]Run, error)
	// ScheduleState returns a skill's state; a skill never seen has the
	// zero state.
	ScheduleState(ctx context.Context, skill string) (ScheduleState, error)
	// UpdateScheduleState changes a skill's state in one transaction:
	// change gets the stored state (the zero state for a skill never
	// seen), and what it leaves is stored and returned. Changes made at
	// the same time (a pause while a run records its outcome) never
	// overwrite each other.
	UpdateScheduleState(ctx context.Context, skill string, change func(*ScheduleState)) (ScheduleState, error)
	// ArmSchedules records the schedules a scheduler arms at the time at,
	// and returns since when each has been armed: a skill armed before on
	// the same spec and zone keeps its time, a new or changed one gets at,
	// and skills not in the list are forgotten (switched off and on again,
	// a skill is new). Missed times before that are never caught up.
	ArmSchedules(ctx context.Context, at time.Time, specs []ScheduleSpec) (map[string]time.Time, error)
}

// Incoming is a received message waiting for its turn.
type Incoming struct {
	ID               int64
	Chat, User, Name string
	Text             string
	// Received is when it was stored; Begun is set once a turn for it
	// started (Begin), so whoever answers it after a crash goes on from
	// what that turn stored. Both are read back, never written by Receive.
	Received time.Time
	Begun    bool
	// Delivery names the platform's delivery of the message (Telegram's
	// update id, Discord's message id), "" when the channel never
	// delivers twice (the console). Receive takes each delivery once.
	Delivery string
	// Audio is a voice note or audio file not yet transcribed (V1): kept
	// until it is, so nothing is lost while no transcription endpoint is
	// set. Nil once transcribed (Text then holds what was heard).
	Audio *IncomingAudio
	// File is a photo, image or document the owner sent (CH4), kept with
	// the message until it is answered; Text is then its caption.
	File *IncomingFile
}

// IncomingFile is a received photo or file.
type IncomingFile struct {
	Data     []byte
	MIME     string // as the platform said; "" if unknown
	FileName string // "" for a photo
	Photo    bool   // a photo sent as such, not a file
}

// IncomingAudio is a received voice note or audio file.
type IncomingAudio struct {
	Data     []byte
	MIME     string
	Duration time.Duration
	Voice    bool   // a voice note, not an audio file
	FileName string // "" for a voice note
	// Told is set once the owner was told that no transcription endpoint
	// is set, so a restart does not say it again.
	Told bool
	// Heard is set once it was transcribed (Data is then empty and the
	// message's Text holds what was heard): a restart answers it as the
	// spoken message it was, without transcribing it again.
	Heard bool
}

// Inbox keeps received messages until they are answered.
type Inbox interface {
	// Receive stores a received message. One with a Delivery already
	// taken (ErrDelivered's code, ECONFLICT) is not stored again: Telegram
	// redelivers an update it did not see confirmed, and behind a balancer
	// another replica may have the same one (ST2).
	Receive(ctx context.Context, m Incoming) (int64, error)
	Answered(ctx context.Context, id int64) error
	Waiting(ctx context.Context) ([]Incoming, error) // oldest first
	// WaitingIn is Waiting for one chat (turns across replicas, ST2).
	WaitingIn(ctx context.Context, chat string) ([]Incoming, error)
	// Begin marks a message whose turn starts; ENOTFOUND when it is no
	// longer waiting (answered meanwhile by another replica).
	Begin(ctx context.Context, id int64) error
	// Transcribed replaces a kept voice note by what was heard: Text is
	// set, the audio dropped and the note marked Heard. ENOTFOUND for an
	// id not in the inbox.
	Transcribed(ctx context.Context, id int64, text string) error
	// ToldNoTranscription records that the owner was told what to set for
	// this note.
	ToldNoTranscription(ctx context.Context, id int64) error
}

// Deliveries remembers, for a while, which platform deliveries were
// taken (ST2): an update redelivered, or delivered to two replicas, is
// acted on once, even after its inbox row is gone.
type Deliveries interface {
	// TakeDelivery records a delivery of the platform ("telegram") with
	// its id; taken is false when it was taken before (by Receive too).
	TakeDelivery(ctx context.Context, platform, id string) (taken bool, err error)
	// ForgetDeliveries forgets the deliveries taken more than keep ago.
	ForgetDeliveries(ctx context.Context, keep time.Duration) error
}

// ErrDelivered is Receive's answer for a delivery taken before.
// Match it with errors.Is.
var ErrDelivered = &jarvisbot.Error{Code: jarvisbot.ECONFLICT, Message: "this delivery of the message was taken before"}
