package store

import "context"

// Tally is one day's count of one kind of event: the turns that ended
// with an outcome, the tool calls of a tier (W2). The runtime reports
// these as they happen and keeps nothing of them; the tally is what the
// Overview's charts read of them, a row per day, agent, kind and key, so
// it stays small however busy the installation is.
type Tally struct {
	// Day is the day in the owner's time zone, as "2006-01-02".
	Day string
	// Agent is the agent whose turns and calls were counted.
	Agent string
	// Kind is TallyTurn or TallyToolCall; Key its outcome or tier.
	Kind  string
	Key   string
	Count int
}

// The kinds of events tallied.
const (
	// TallyTurn counts turns by outcome: ok, error, awaiting_approval,
	// stopped.
	TallyTurn = "turn"
	// TallyToolCall counts tool calls by tier: safe, monitor, ask, or
	// TallyNoTier for a call refused before a tier applied.
	TallyToolCall = "tool_call"
	TallyNoTier   = "none"
)

// Tallies keeps the daily counts.
type Tallies interface {
	// AddTally adds n to the day's count of (agent, kind, key), starting
	// it at n when there is none: one statement, safe from replicas
	// counting at once.
	AddTally(ctx context.Context, day, agent, kind, key string, n int) error
	// TalliesSince returns the counts of day and later, by day, agent,
	// kind and key.
	TalliesSince(ctx context.Context, day string) ([]Tally, error)
}
