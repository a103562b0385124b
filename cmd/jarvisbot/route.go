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
			route.WriteText(a.stdout, ex)
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
