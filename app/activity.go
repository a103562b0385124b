package app

import (
	"context"

	"github.com/jarvisbot/jarvisbot/store"
)

// Board is the activity board (C2) as a door shows it.
type Board struct {
	// Entries are newest first.
	Entries []store.ActivityEntry
	// Last is the id of the board's newest entry, filtered or not, when
	// it was read: a reader that follows the board (the dashboard's live
	// view) goes on from there with ActivitySince.
	Last int64
}

// activityBatch is how many new entries a follower gets at a time.
const activityBatch = 100

// Activity is the board, newest first: at most limit entries that pass f
// (limit <= 0 means 50).
func (in *Installation) Activity(ctx context.Context, f store.ActivityFilter, limit int) (Board, error) {
	last, err := in.DB.LastActivityID(ctx)
	if err != nil {
		return Board{}, err
	}
	list, err := in.DB.ActivityBoard(ctx, f, limit)
	if err != nil {
		return Board{}, err
	}
	return Board{Entries: list, Last: last}, nil
}

// ActivitySince are the entries that pass f recorded after the entry with
// id after, oldest first, a batch at a time.
func (in *Installation) ActivitySince(ctx context.Context, f store.ActivityFilter, after int64) ([]store.ActivityEntry, error) {
	return in.DB.ActivitySince(ctx, f, after, activityBatch)
}

// ActivityWho is who made a call on the board: the agent, with the app it
// worked for when an app's job or chat asked for the call, so that no
// door shows an app's work as the owner's.
func ActivityWho(agent, forApp string) string {
	if forApp == "" {
		return agent
	}
	return agent + " for app " + forApp
}
