package main

import (
	"context"
	"time"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
	"github.com/jarvisbot/jarvisbot/web"
)

// webActivity is the dashboard's Activity tab over this session: the
// board `jarvisbot activity` prints, read by the same code.
func (a *cli) webActivity(cfg config.Config, s *app.Session) web.Activity {
	return activityTab{db: s.DB}
}

type activityTab struct{ db *sqlstore.DB }

// streamBatch is how many new entries the live view gets at a time.
const streamBatch = 100

func (t activityTab) Board(ctx context.Context, f web.ActivityFilter, limit int) ([]web.ActivityRow, int64, error) {
	last, err := t.db.LastActivityID(ctx)
	if err != nil {
		return nil, 0, err
	}
	rows, err := readActivity(ctx, t.db, boardFilter(f), limit)
	if err != nil {
		return nil, 0, err
	}
	return webRows(rows), last, nil
}

func (t activityTab) Since(ctx context.Context, f web.ActivityFilter, after int64) ([]web.ActivityRow, error) {
	list, err := t.db.ActivitySince(ctx, boardFilter(f), after, streamBatch)
	if err != nil {
		return nil, err
	}
	return webRows(activityRows(list)), nil
}

func boardFilter(f web.ActivityFilter) store.ActivityFilter {
	return store.ActivityFilter{Agent: f.Agent, Tool: f.Tool, Outcome: f.Outcome}
}

func webRows(rows []activityRow) []web.ActivityRow {
	out := make([]web.ActivityRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, web.ActivityRow{ID: r.ID, At: r.At, Agent: r.Agent, App: r.App, Tool: r.Tool, Tier: r.Tier, Args: r.Args, Outcome: r.Outcome,
			Took: time.Duration(r.DurationMS) * time.Millisecond})
	}
	return out
}
