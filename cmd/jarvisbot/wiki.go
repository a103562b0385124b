package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog/builtin/wiki"
)

const wikiSynopsis = "wiki list | read NAME | search [-limit N] QUERY... | write NAME <BODY | append NAME <TEXT | delete NAME"

// cmdWiki gives the owner the wiki the agents use, in <data dir>/wiki, with
// the same names and checks; only here can notes be deleted.
func cmdWiki(ctx context.Context, a *app, args []string) error {
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
	wantArgs := func(n int, what string) error {
		if len(rest) != n {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "wiki %s takes %s, got %d arguments: usage: jarvisbot %s", action, what, len(rest), wikiSynopsis)
		}
		return nil
	}
	switch action {
	case "list":
		err = wantArgs(0, "no arguments")
	case "read", "write", "append", "delete":
		err = wantArgs(1, "one note NAME (quote names with spaces)")
	case "search":
		if len(rest) == 0 {
			err = jarvisbot.Errorf(jarvisbot.EINVALID, "wiki search needs a QUERY: usage: jarvisbot %s", wikiSynopsis)
		}
	default:
		err = jarvisbot.Errorf(jarvisbot.EINVALID, "unknown wiki action %q: usage: jarvisbot %s", action, wikiSynopsis)
	}
	if err != nil {
		return err
	}

	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	w := wiki.New(filepath.Join(cfg.DataDir, "wiki"))

	switch action {
	case "list":
		notes, err := w.List(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
		for _, n := range notes {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", n.Name, n.Title, n.Modified.Format("2006-01-02 15:04"))
		}
		return tw.Flush()
	case "read":
		n, err := w.Read(ctx, rest[0])
		if err != nil {
			return err
		}
		_, err = io.WriteString(a.stdout, n.Body)
		return err
	case "search":
		hits, err := w.Search(ctx, strings.Join(rest, " "), *limit)
		if err != nil {
			return err
		}
		if len(hits) == 0 {
			fmt.Fprintf(a.stderr, "no notes match %q\n", strings.Join(rest, " "))
			return nil
		}
		for i, h := range hits {
			fmt.Fprintf(a.stdout, "%d. %s — %s\n", i+1, h.Name, h.Title)
			if h.Snippet != "" {
				fmt.Fprintf(a.stdout, "   %s\n", h.Snippet)
			}
		}
		return nil
	case "write", "append":
		text, err := readStdin(a, action)
		if err != nil {
			return err
		}
		var n wiki.Note
		if action == "write" {
			n, err = w.Write(ctx, rest[0], text)
		} else {
			n, err = w.Append(ctx, rest[0], text)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "saved %s (%d bytes)\n", n.Name, len(n.Body))
		return nil
	}
	if err := w.Delete(ctx, rest[0]); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "deleted %s\n", rest[0])
	return nil
}

// readStdin reads a note's text from stdin, refusing more than a note may
// hold without reading all of it.
func readStdin(a *app, action string) (string, error) {
	if a.stdin == nil {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "wiki %s reads the text from stdin, and there is none", action)
	}
	b, err := io.ReadAll(io.LimitReader(a.stdin, wiki.MaxBody+1))
	if err != nil {
		return "", jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "wiki %s: read stdin: %w", action, err)
	}
	if len(b) > wiki.MaxBody {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "wiki %s: stdin holds more than %d bytes, the most a note may hold: split it into several notes", action, wiki.MaxBody)
	}
	return string(b), nil
}
