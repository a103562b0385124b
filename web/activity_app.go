package web

import (
	"context"
	"time"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/store"
)

// ActivityTab is the Activity tab over the running service: the board
// `jarvisbot activity` prints, read through the same use case.
func ActivityTab(in *app.Installation) Activity {
	return activityTab{in: in}
}

type activityTab struct{ in *app.Installation }

func (t activityTab) Board(ctx context.Context, f ActivityFilter, limit int) ([]ActivityRow, int64, error) {
	b, err := t.in.Activity(ctx, boardFilter(f), limit)
	if err != nil {
		return nil, 0, err
	}
	return activityRows(b.Entries), b.Last, nil
}

func (t activityTab) Since(ctx context.Context, f ActivityFilter, after int64) ([]ActivityRow, error) {
	list, err := t.in.ActivitySince(ctx, boardFilter(f), after)
	if err != nil {
		return nil, err
	}
	return activityRows(list), nil
}

func boardFilter(f ActivityFilter) store.ActivityFilter {
	return store.ActivityFilter{Agent: f.Agent, Tool: f.Tool, Outcome: f.Outcome}
}

func activityRows(list []store.ActivityEntry) []ActivityRow {
	out := make([]ActivityRow, 0, len(list))
	for _, e := range list {
		out = append(out, ActivityRow{ID: e.ID, At: e.At, Agent: e.Agent, App: e.App, Tool: e.Tool, Tier: e.Tier, Args: e.Args, Outcome: e.Outcome,
			Took: e.Duration.Truncate(time.Millisecond)})
	}
	return out
}

// SaidSearch is the Activity tab's search box over the installation: the
// use case `jarvisbot memory search` calls.
func SaidSearch(in *app.Installation) Said { return activityTab{in: in} }

func (t activityTab) SearchSaid(ctx context.Context, query string, limit int) ([]SaidHit, error) {
	hits, err := t.in.SearchSaid(ctx, query, store.RecallFilter{Limit: limit})
	if err != nil {
		return nil, err
	}
	return saidHits(hits), nil
}

func saidHits(hits []store.RecallHit) []SaidHit {
	out := make([]SaidHit, 0, len(hits))
	for _, h := range hits {
		where := h.Chat
		if h.Kind == store.RecallNote {
			where = "wiki " + h.Ref
		}
		out = append(out, SaidHit{At: h.At, Chat: where, Who: h.Who, Snippet: h.Snippet})
	}
	return out
}
