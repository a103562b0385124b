package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/jarvisbot/jarvisbot"
	usagereport "github.com/jarvisbot/jarvisbot/agents/usage"
)

// cmdUsage: what the model calls cost, grouped one way.
func cmdUsage(ctx context.Context, a *cli, args []string) error {
	const synopsis = "usage [--since 7d] [--by agent|model|day|source] [--json]"
	fs := newFlagSet(a, "usage", synopsis)
	since := fs.String("since", "7d", "how far back: days (7d), hours (24h), today, month, or a date (2026-12-01)")
	by := fs.String("by", usagereport.ByAgent, "group by "+strings.Join(usagereport.Groupings, ", "))
	asJSON := fs.Bool("json", false, "the report as one JSON object")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot %s", synopsis)
	}
	if err := usagereport.CheckGrouping(*by); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "--by: %w", err)
	}
	in, err := a.OpenInstallation(ctx)
	if err != nil {
		return err
	}
	defer in.Close()
	from, err := usagereport.ParseSince(*since, a.Now(), in.Config.Location())
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "--since: %w", err)
	}
	rep, err := in.Usage(ctx, from, *by)
	if err != nil {
		return err
	}
	if *asJSON {
		b, err := json.Marshal(rep)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(a.stdout, "%s\n", b)
		return err
	}
	since0 := rep.Since.In(in.Config.Location()).Format("2006-01-02 15:04")
	if rep.Total.Calls == 0 {
		fmt.Fprintf(a.stdout, "No model calls since %s.\n", since0)
		return nil
	}
	fmt.Fprintf(a.stdout, "Model calls since %s, by %s:\n", since0, rep.By)
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\tcalls\tinput\toutput\tcache read\tcache write\tcost\ttools sent\tgate saved\n", rep.By)
	row := func(key string, t usagereport.Totals) {
		calls := fmt.Sprint(t.Calls)
		if t.Errors > 0 {
			calls += fmt.Sprintf(" (%d failed)", t.Errors)
		}
		tools, saved := "-", "-"
		if t.Calls > 0 && t.ToolsSent > 0 {
			tools = fmt.Sprintf("%.1f a call", float64(t.ToolsSent)/float64(t.Calls))
		}
		if t.CatalogTokens > 0 {
			saved = fmt.Sprintf("%.0f%%", 100*t.Saved())
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", key, calls, usagereport.Tokens(t.InputTokens), usagereport.Tokens(t.OutputTokens),
			usagereport.Tokens(t.CacheReadTokens), usagereport.Tokens(t.CacheWriteTokens), t.CostText(), tools, saved)
	}
	for _, r := range rep.Rows {
		row(r.Key, r.Totals)
	}
	row("total", rep.Total)
	if err := tw.Flush(); err != nil {
		return err
	}
	if s := rep.Total.SavedText(); s != "" {
		fmt.Fprintf(a.stdout, "The gate kept %s out of the calls (every tool the agents may use, sent each call, against those offered).\n", s)
	}
	if rep.Total.Unpriced > 0 {
		fmt.Fprintln(a.stdout, "Models with no price: add them under prices: in the config (US dollars per million tokens).")
	}
	return nil
}
