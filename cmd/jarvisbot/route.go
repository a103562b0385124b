package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/app/route"
	"github.com/jarvisbot/jarvisbot/store"
)

// maxRouteLine bounds one message read from stdin by `route -`.
const maxRouteLine = 4 << 20

// cmdRoute explains a turn without running it (C7).
func cmdRoute(ctx context.Context, a *cli, args []string) error {
	fs := newFlagSet(a, "route", "route [--agent NAME] [--catalog SNAPSHOT.json] [--connect-all] [--json] MESSAGE | -")
	agentName := fs.String("agent", store.DefaultAgent, "the agent whose turn to explain")
	snapshot := fs.String("catalog", "", "load MCP servers from a catalog snapshot, as if connected")
	connectAll := fs.Bool("connect-all", false, "treat every store plugin as connected: all manuals are on, and the built-in plugins' tools (for evaluation)")
	asJSON := fs.Bool("json", false, "one JSON object per message, one per line")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fs.Usage()
		return jarvisbot.Errorf(jarvisbot.EINVALID, "give a message, or - to read one message per line from stdin")
	}
	p, err := a.PlanRoute(ctx, app.RouteOptions{Agent: *agentName, Snapshot: *snapshot, ConnectAll: *connectAll})
	a.warn(p.Warnings)
	if err != nil {
		return err
	}
	answer := func(msg string) error {
		ex := p.Explain(msg)
		if !*asJSON {
			writeRoute(a.stdout, ex)
			return nil
		}
		b, err := json.Marshal(ex.Output)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(a.stdout, "%s\n", b)
		return err
	}
	if len(pos) == 1 && pos[0] == "-" {
		return eachLine(ctx, a.stdin, answer)
	}
	return answer(strings.Join(pos, " "))
}

// eachLine answers every message read from r, one per line.
func eachLine(ctx context.Context, r io.Reader, answer func(string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxRouteLine)
	for sc.Scan() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := answer(strings.TrimRight(sc.Text(), "\r")); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "read messages from stdin (one per line, at most %d MiB each): %w", maxRouteLine>>20, err)
	}
	return nil
}

// writeRoute prints an explained turn for people.
func writeRoute(w io.Writer, ex route.Explanation) {
	fmt.Fprintf(w, "Message: %q\n", ex.Message)
	fmt.Fprintf(w, "Agent:   %s", ex.Agent)
	if len(ex.Focus) > 0 {
		fmt.Fprintf(w, " (focus: %s)", strings.Join(ex.Focus, ", "))
	}
	fmt.Fprintln(w)
	if len(ex.MCP) == 0 {
		fmt.Fprintln(w, "\nMCP servers: none connected (load a snapshot with --catalog)")
	} else {
		fmt.Fprintln(w, "\nMCP servers:")
		for _, m := range ex.MCP {
			if m.Offered {
				fmt.Fprintf(w, "  + %s: offered, %d tools, because %s\n", m.Server, m.Tools, m.Because)
			} else {
				fmt.Fprintf(w, "  - %s: not offered: %s\n", m.Server, m.Because)
			}
		}
	}
	if len(ex.OnRequest) > 0 {
		fmt.Fprintf(w, "  On request (the model can ask for their tools): %s\n", strings.Join(ex.OnRequest, ", "))
	}
	fmt.Fprintf(w, "\nTools the model gets, in order (%d, ~%d schema tokens):\n", len(ex.Tools), ex.SchemaTokens)
	for i, cp := range ex.Tools {
		if i == ex.Prefix && ex.Prefix > 0 && ex.Prefix < len(ex.Tools) {
			fmt.Fprintln(w, "  -- per-turn MCP tools (after the cached prefix) --")
		}
		fmt.Fprintf(w, "  %3d. %s [%s]\n", i+1, cp.ID, route.TierText(cp))
	}
	writeWithheld(w, ex.Withheld)
	if len(ex.Skills) == 0 {
		fmt.Fprintln(w, "\nSkills: none matched")
		return
	}
	fmt.Fprintln(w, "\nSkills (best first):")
	for _, sk := range ex.Skills {
		fmt.Fprintf(w, "  %s  score %.2f  entry %s", sk.ID, sk.Score, sk.Entry)
		if sk.Tie != nil && sk.Plugin != nil {
			fmt.Fprintf(w, "  (%s)", sk.Tie.String(*sk.Plugin))
		}
		fmt.Fprintln(w)
	}
}

func writeWithheld(w io.Writer, groups []route.Withheld) {
	if len(groups) == 0 {
		return
	}
	fmt.Fprintln(w, "\nWithheld:")
	for _, g := range groups {
		more := ""
		if g.More > 0 {
			more = fmt.Sprintf(" and %d more", g.More)
		}
		fmt.Fprintf(w, "  %s: %s%s\n", g.Reason, strings.Join(g.IDs, ", "), more)
	}
}
