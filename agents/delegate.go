package agents

import (
	"context"
	"encoding/json"

	"github.com/jarvisbot/jarvisbot/agents/llm"
)

// A Delegate runs a whole turn itself: a coding CLI (Claude Code, Codex)
// is the model and its own tool loop (M5). The runtime prepares the turn
// as for any agent (history, skills, the tools resolved by C3 with the
// gate and the never-list) and hands it over; every tool call the
// delegate makes comes back through Call, so tiers, approvals, deadlines
// and the activity board apply exactly as for an API agent.
type Delegate interface {
	// Turn runs one turn and returns the final answer.
	Turn(ctx context.Context, t DelegateTurn) (DelegateResult, error)
}

// DelegateTurn is one turn as a delegate sees it.
type DelegateTurn struct {
	Agent string
	Chat  string
	Text  string // the owner's message
	// System is the turn's system prompt (skills, services, notes).
	System string
	// History is the conversation before this message, oldest first.
	History []llm.Message
	// Tools are the tools offered this turn, by wire name.
	Tools []llm.Tool
	// Call runs one tool call through the runtime's checks and returns its
	// result (an error result when refused, denied or failed).
	Call func(ctx context.Context, wireName string, input json.RawMessage) llm.ToolResult
	// Approve asks the owner, through the approvals engine, whether the
	// delegate may use one of its own tools (a shell command, a file
	// write); always-for-this-tool grants are kept per agent.
	Approve func(ctx context.Context, tool string, input json.RawMessage) (bool, error)
	// Session is what the delegate kept of this chat's conversation last
	// time (a CLI's session id), "" for none; SetSession keeps a new one.
	Session    string
	SetSession func(ctx context.Context, id string) error
}

// DelegateResult is what a delegate's turn came to.
type DelegateResult struct {
	Text  string
	Calls []CallRecord // filled by the runtime from Call
	// Usage is the tokens the CLI reported for the whole turn, and
	// Provider and Model who answered ("claude-code" or "codex", and the
	// model the CLI named, "" when it named none).
	Usage    llm.Usage
	Provider string
	Model    string
}
