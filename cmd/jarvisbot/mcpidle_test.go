package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
)

// TestServeStartsMCPServersOnUseM3: serve runs no process for an MCP
// server whose tools were listed when it was added; the first turn that
// is offered them starts it and its call is answered; after
// mcp_idle_timeout without a call (on the pinned clock) it stops, and
// /mcp says so with its tools; the next turn starts it again.
func TestServeStartsMCPServersOnUseM3(t *testing.T) {
	e, f, c := serveTestbox(t, nil)
	out := c.out
	c.say("/mcp")
	waitOutput(t, out, "testbox: idle, starts when a request needs it")
	if strings.Contains(out.String(), "MCP server up") {
		t.Fatalf("testbox started with serve:\n%s", out.String())
	}

	echo := func(text string) {
		t.Helper()
		f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("mcp:testbox/echo"), Input: `{"text":"` + text + `"}`}}},
			fakellm.Step{Text: "Echoed " + text + "."})
		c.say("ask testbox to echo " + text)
		waitOutput(t, out, "Echoed "+text+".")
		reqs := f.Requests()
		if res := fmt.Sprint(reqs[len(reqs)-1].Messages); !strings.Contains(res, text) {
			t.Fatalf("the echo's result did not reach the model: %s", res)
		}
	}
	echo("first")
	if n := strings.Count(out.String(), "starting an idle MCP server for a request"); n != 1 {
		t.Fatalf("testbox was started %d times for the first turn:\n%s", n, out.String())
	}
	waitFor(t, "testbox to stop after 5 minutes without a call", func() (bool, any) {
		e.clock.Advance(time.Minute) // the idle timer is set once the session serves
		return strings.Contains(out.String(), "MCP server idle: stopped until a request needs it"), out.String()
	})
	c.say("/mcp")
	waitFor(t, "/mcp to say testbox idles again, with its tools", func() (bool, any) {
		return strings.Count(out.String(), "testbox: idle, starts when a request needs it, 11 tools") == 2, out.String()
	})
	echo("second")
	if n := strings.Count(out.String(), "starting an idle MCP server for a request"); n != 2 {
		t.Errorf("testbox was started %d times in all, want twice:\n%s", n, out.String())
	}
}

// TestServeStartsServerWithoutUsableStoredToolsM3: a server whose stored
// list names tools, none of which the catalog takes, has no tools to be
// offered, so nothing would ever start it on use: serve starts it once
// the owner can reach jarvisbot, as one with no list, and its live tools
// join.
func TestServeStartsServerWithoutUsableStoredToolsM3(t *testing.T) {
	_, _, c := serveTestbox(t, func(e *testEnv) {
		setCachedTools(t, e, "testbox", `[{"name": "a/b"}, {"name": ""}]`)
	})
	out := c.out
	waitOutput(t, out, "MCP server up")
	c.say("/mcp")
	waitOutput(t, out, "testbox: up, 11 tools")
	if strings.Contains(out.String(), "starting an idle MCP server for a request") {
		t.Errorf("testbox waited for a request it could not be offered to:\n%s", out.String())
	}
}

// serveTestbox adds the test MCP server, lets before change the store,
// and runs serve on the console with servers idling after five minutes,
// on a clock pinned where no schedule is due for hours, until it
// listens; serve stops when the test ends.
func serveTestbox(t *testing.T, before func(e *testEnv)) (*testEnv, *fakellm.Server, *terminal) {
	t.Helper()
	e := newTestEnv(t)
	e.clock = clock.NewFake(time.Date(2026, 12, 2, 13, 0, 0, 0, time.Local))
	e.vars["JARVIS_MCP_IDLE_TIMEOUT"] = "5m"
	f := withModel(t, e)
	e.mustJarvis(t, "", "mcp", "add", "testbox", "--", mcpTestServer(t))
	if before != nil {
		before(e)
	}
	c := startTerminal(e)
	t.Cleanup(func() {
		c.stop()
		c.in.Close()
		<-c.done
	})
	waitOutput(t, c.out, "listening here")
	return e, f, c
}
