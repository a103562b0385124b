package store

import "context"

// ActivityEntry is an entry of the activity board with its id. Ids grow
// as entries are recorded, so a reader that follows the board (the
// dashboard's live view) asks for the entries after the last id it saw.
type ActivityEntry struct {
	ID int64
	Activity
}

// ActivityFilter narrows the board. Empty fields match everything.
type ActivityFilter struct {
	// Agent matches the agent (or app:NAME) exactly.
	Agent string
	// Tool matches the capability id exactly, or, ending in "*", every id
	// that starts with what comes before it ("mcp:github/*").
	Tool string
	// Outcome matches the outcome exactly, or its kind, the words before
	// ":" ("error" matches "error: the server did not answer").
	Outcome string
}

// ActivityBoard reads the activity board with filters and ids.
type ActivityBoard interface {
	// ActivityBoard returns at most limit entries that pass f, newest
	// first, as RecentActivity orders them (limit <= 0 means 50).
	ActivityBoard(ctx context.Context, f ActivityFilter, limit int) ([]ActivityEntry, error)
	// ActivitySince returns at most limit entries that pass f and were
	// recorded after the entry with id after, oldest first.
	ActivitySince(ctx context.Context, f ActivityFilter, after int64, limit int) ([]ActivityEntry, error)
	// LastActivityID is the id of the newest entry, 0 when the board is
	// empty.
	LastActivityID(ctx context.Context) (int64, error)
}
