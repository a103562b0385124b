package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/memory"
	"github.com/jarvisbot/jarvisbot/store"
)

const memorySynopsis = "memory search [--chat C] [--since DATE] [--until DATE] [--limit N] [--json] WORDS…"

// cmdMemory: search everything said (A6), as builtin:memory does for the
// agents.
func cmdMemory(ctx context.Context, a *cli, args []string) error {
	if len(args) == 0 || args[0] != "search" {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot %s", memorySynopsis)
	}
	fs := newFlagSet(a, "memory search", memorySynopsis)
	chat := fs.String("chat", "", "only this chat, as hits name it (telegram:123); all chats and the wiki by default")
	since := fs.String("since", "", "only from this date on (YYYY-MM-DD, in the config's time zone)")
	until := fs.String("until", "", "only before this date (YYYY-MM-DD)")
	limit := fs.Int("limit", store.DefaultRecallLimit, fmt.Sprintf("most hits (at most %d)", store.MaxRecallLimit))
	asJSON := fs.Bool("json", false, "one JSON array of hits")
	pos, err := parseFlags(fs, args[1:])
	if err != nil {
		return err
	}
	query := strings.TrimSpace(strings.Join(pos, " "))
	if query == "" {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot %s: give the words to look for", memorySynopsis)
	}
	if *limit <= 0 || *limit > store.MaxRecallLimit {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "--limit %d: give a number from 1 to %d", *limit, store.MaxRecallLimit)
	}
	in, err := a.OpenInstallation(ctx)
	if err != nil {
		return err
	}
	defer in.Close()
	loc := in.Config.Location()
	f := store.RecallFilter{Chat: *chat, Limit: *limit}
	if f.Since, err = memory.ParseDate(*since, loc); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "--since: %w", err)
	}
	if f.Until, err = memory.ParseDate(*until, loc); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "--until: %w", err)
	}
	hits, err := in.SearchSaid(ctx, query, f)
	if err != nil {
		return err
	}
	if *asJSON {
		if hits == nil {
			hits = []store.RecallHit{}
		}
		b, err := json.Marshal(hits)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(a.stdout, "%s\n", b)
		return err
	}
	if len(hits) == 0 {
		fmt.Fprintf(a.stdout, "Nothing said matches %q.\n", query)
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "date\tchat\twho\tsaid")
	for _, h := range hits {
		where := h.Chat
		if h.Kind == store.RecallNote {
			where = "wiki " + h.Ref
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", h.At.In(loc).Format("2006-01-02 15:04"), where, h.Who, h.Snippet)
	}
	return tw.Flush()
}
