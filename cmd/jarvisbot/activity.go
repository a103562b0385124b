package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/store"
)

// activityRow is one line of `activity --json`.
type activityRow struct {
	At         time.Time `json:"at"`
	Agent      string    `json:"agent"`
	App        string    `json:"app,omitempty"` // whose job or chat the call served
	Tool       string    `json:"tool"`
	Tier       string    `json:"tier"`
	Args       string    `json:"args"`
	Outcome    string    `json:"outcome"`
	DurationMS int64     `json:"duration_ms"`
}

// cmdActivity: the activity board (C2), newest first.
func cmdActivity(ctx context.Context, a *cli, args []string) error {
	fs := newFlagSet(a, "activity", "activity [--limit N] [--json]")
	limit := fs.Int("limit", 50, "how many entries")
	asJSON := fs.Bool("json", false, "one JSON array")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot activity [--limit N] [--json]")
	}
	in, err := a.OpenInstallation(ctx)
	if err != nil {
		return err
	}
	defer in.Close()
	board, err := in.Activity(ctx, store.ActivityFilter{}, *limit)
	if err != nil {
		return err
	}
	rows := activityRows(board.Entries)
	if *asJSON {
		b, err := json.Marshal(rows)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(a.stdout, "%s\n", b)
		return err
	}
	if len(rows) == 0 {
		fmt.Fprintln(a.stdout, "No activity yet: monitor-tier and approved tool calls appear here.")
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%dms\t%s\n", r.At.Local().Format("2006-01-02 15:04:05"), app.ActivityWho(r.Agent, r.App), r.Tool, r.Outcome, r.DurationMS, r.Args)
	}
	return tw.Flush()
}

func activityRows(list []store.ActivityEntry) []activityRow {
	rows := make([]activityRow, 0, len(list))
	for _, e := range list {
		rows = append(rows, activityRow{e.At, e.Agent, e.App, e.Tool, e.Tier, e.Args, e.Outcome, e.Duration.Milliseconds()})
	}
	return rows
}
