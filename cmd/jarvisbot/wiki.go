package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/wiki"
)

const wikiSynopsis = "wiki list | read NAME | search [-limit N] QUERY... | write NAME <BODY | append NAME <TEXT | delete NAME"

// cmdWiki gives the owner the wiki the agents use, in <data dir>/wiki, with
// the same names and checks; only here can notes be deleted.
func cmdWiki(ctx context.Context, a *cli, args []string) error {
	fs := newFlagSet(a, "wiki", wikiSynopsis)
	limit := fs.Int("limit", 10, "most hits to show for search")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "missing action: usage: jarvisbot %s", wikiSynopsis)
	}
	action, rest := pos[0], pos[1:]
	if err := checkWikiArgs(action, rest); err != nil {
		return err
	}
	cfg, err := a.LoadConfig()
	if err != nil {
		return err
	}
	wc := wikiCmd{a: a, w: app.Wiki(cfg)}
	switch action {
	case "list":
		return wc.list(ctx)
	case "read":
		n, err := wc.w.Read(ctx, rest[0])
		if err != nil {
			return err
		}
		_, err = io.WriteString(a.stdout, n.Body)
		return err
	case "search":
		return wc.search(ctx, strings.Join(rest, " "), *limit)
	case "write", "append":
		return wc.save(ctx, action, rest[0])
	}
	if err := wc.w.Delete(ctx, rest[0]); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "deleted %s\n", rest[0])
	return nil
}

// checkWikiArgs says what an action takes when it was given something else.
func checkWikiArgs(action string, rest []string) error {
	wantArgs := func(n int, what string) error {
		if len(rest) != n {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "wiki %s takes %s, got %d arguments: usage: jarvisbot %s", action, what, len(rest), wikiSynopsis)
		}
		return nil
	}
	switch action {
	case "list":
		return wantArgs(0, "no arguments")
	case "read", "write", "append", "delete":
		return wantArgs(1, "one note NAME (quote names with spaces)")
	case "search":
		if len(rest) == 0 {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "wiki search needs a QUERY: usage: jarvisbot %s", wikiSynopsis)
		}
		return nil
	}
	return jarvisbot.Errorf(jarvisbot.EINVALID, "unknown wiki action %q: usage: jarvisbot %s", action, wikiSynopsis)
}

type wikiCmd struct {
	a *cli
	w *wiki.Wiki
}

func (wc wikiCmd) list(ctx context.Context) error {
	notes, err := wc.w.List(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(wc.a.stdout, 0, 4, 2, ' ', 0)
	for _, n := range notes {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", n.Name, n.Title, n.Modified.Format("2006-01-02 15:04"))
	}
	return tw.Flush()
}

func (wc wikiCmd) search(ctx context.Context, query string, limit int) error {
	hits, err := wc.w.Search(ctx, query, limit)
	if err != nil {
		return err
	}
	if len(hits) == 0 {
		fmt.Fprintf(wc.a.Stderr, "no notes match %q\n", query)
		return nil
	}
	for i, h := range hits {
		fmt.Fprintf(wc.a.stdout, "%d. %s — %s\n", i+1, h.Name, h.Title)
		if h.Snippet != "" {
			fmt.Fprintf(wc.a.stdout, "   %s\n", h.Snippet)
		}
	}
	return nil
}

// save writes or appends to a note the text read from stdin.
func (wc wikiCmd) save(ctx context.Context, action, name string) error {
	if wc.a.stdin == nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "wiki %s reads the text from stdin, and there is none", action)
	}
	text, err := wiki.ReadBody(wc.a.stdin, "stdin")
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.ErrorCode(err), "wiki %s: %w", action, err)
	}
	n, err := app.SaveNote(ctx, wc.w, name, text, action == "append")
	if err != nil {
		return err
	}
	fmt.Fprintf(wc.a.stdout, "saved %s (%d bytes)\n", n.Name, len(n.Body))
	return nil
}
