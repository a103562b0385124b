package store

import (
	"context"
	"time"
)

// ModelCall is one call to a model, as the usage figures count it (A5):
// who caused it, what the provider reported, and what the gate saved. It
// holds no text of the conversation, which the messages keep.
type ModelCall struct {
	ID    int64
	At    time.Time
	Agent string
	// Source is what caused the turn: "chat", "schedule:SKILL" or
	// "app:NAME"; Chat is the conversation it ran in.
	Source string
	Chat   string
	// Provider answered the call ("anthropic", "openai", or the name a
	// provider chain gives one of its links); Model is the model it ran.
	Provider string
	Model    string
	// Tokens as the provider reported them: input excludes what was read
	// from or written to its prompt cache where the provider counts those
	// apart (Anthropic); OpenAI's cached tokens are part of its input.
	InputTokens      int
	OutputTokens     int
	CacheReadTokens  int
	CacheWriteTokens int
	Duration         time.Duration
	// Outcome is "ok", or "error: …" with the reason.
	Outcome string
	// ToolsSent is how many tools the call offered, ToolTokens their
	// schemas' estimated tokens, and CatalogTokens the estimated tokens of
	// every tool the agent could have been sent had the gate offered all.
	ToolsSent     int
	ToolTokens    int
	CatalogTokens int
}

// ModelCalls keeps the record of model calls.
type ModelCalls interface {
	RecordModelCall(ctx context.Context, c ModelCall) error
	// ModelCallsSince returns the calls at or after since, oldest first.
	ModelCallsSince(ctx context.Context, since time.Time) ([]ModelCall, error)
}
