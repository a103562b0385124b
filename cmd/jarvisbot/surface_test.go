package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
)

// addApp runs apps add and returns the key it printed once.
func addApp(t *testing.T, e *testEnv, name, scope string) string {
	t.Helper()
	code, out, errOut := e.jarvis(t, "", "apps", "add", name, "--scope", scope)
	m := regexp.MustCompile(`JARVIS_APP_KEY=(\S+)`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("apps add %s: exit %d\n%s\n%s", name, code, out, errOut)
	}
	return m[1]
}

// pollApp waits for cond, asking no faster than an app's rate limit lets
// a client ask.
func pollApp(t *testing.T, what string, cond func() (bool, any)) {
	t.Helper()
	testwait.For(t, 30*time.Second, what, cond, testwait.WithInterval(150*time.Millisecond))
}

// serveWithSurface starts serve with its MCP endpoint on a free port and
// returns the endpoint's URL.
func serveWithSurface(t *testing.T, e *testEnv) (string, *syncBuffer, func()) {
	t.Helper()
	e.vars["JARVIS_MCP_LISTEN"] = "127.0.0.1:0"
	out, stop := startServe(t, e)
	waitOutput(t, out, "jarvisbot is ready")
	m := regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+/mcp)`).FindStringSubmatch(out.String())
	if m == nil {
		stop()
		t.Fatalf("serve did not say where its MCP endpoint listens:\n%s", out.String())
	}
	return m[1], out, stop
}

// appClient is an MCP client of the endpoint sending key.
func appClient(t *testing.T, url, key string) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + key}))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "test-app", Version: "1"}
	if _, err := c.Initialize(t.Context(), req); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// callApp calls a tool and returns its text and whether it was an error.
func callApp(t *testing.T, c *client.Client, name string, args map[string]any) (string, bool) {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, part := range res.Content {
		if tc, ok := part.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// TestSecondJarvisbotPostsAJobThroughTheFirstM4: a second jarvisbot adds
// the first as an MCP server with an app key, and its agent posts a job
// through it without naming who does it; the first jarvisbot chooses an
// agent, runs the job and records the app's calls on its board.
func TestSecondJarvisbotPostsAJobThroughTheFirstM4(t *testing.T) {
	first := newTestEnv(t)
	f1 := withModel(t, first)
	withTelegram(t, first) // a channel that keeps serve running
	first.vars["JARVIS_TELEGRAM_OWNERS"] = "42"
	key := addApp(t, first, "second", "work")
	url, _, stop := serveWithSurface(t, first)
	defer stop()

	second := newTestEnv(t)
	f2 := withModel(t, second)
	code, out, errOut := second.jarvis(t, "", "mcp", "add", "homejarvis", url, "--header", "Authorization: Bearer "+key)
	if code != 0 {
		t.Fatalf("the second jarvisbot adds the first: exit %d\n%s\n%s", code, out, errOut)
	}
	if strings.Contains(out, key) {
		t.Error("mcp add printed the app key")
	}
	f1.Push(fakellm.Step{Text: "The release notes, in three lines."})
	f2.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("mcp:homejarvis/job_post"), Input: `{"title":"Release notes","text":"Summarise the release notes of version 2"}`}}},
		fakellm.Step{Text: "I asked the first jarvisbot; it is on it."})
	code, out, errOut = second.jarvis(t, "", "chat", "-m", "ask homejarvis to get the release notes summarised")
	if code != 0 || !strings.Contains(out, "it is on it") {
		t.Fatalf("the second jarvisbot's turn: exit %d\n%s\n%s", code, out, errOut)
	}
	posted := f2.Requests()[1].Messages[len(f2.Requests()[1].Messages)-1].ToolResults
	var job struct{ ID, Agent, Why, State string }
	if len(posted) != 1 || json.Unmarshal([]byte(posted[0]), &job) != nil || job.ID == "" || job.Why == "" {
		t.Fatalf("job_post answered %q", posted)
	}
	pollApp(t, "the job to be done on the first jarvisbot", func() (bool, any) {
		_, out, _ := second.jarvis(t, "", "mcp", "call", "homejarvis", "job_get", `{"id":"`+job.ID+`"}`)
		return strings.Contains(out, `"state":"done"`) && strings.Contains(out, "in three lines"), out
	})
	if _, board, _ := first.jarvis(t, "", "activity"); !strings.Contains(board, "app:second") || !strings.Contains(board, "job_post") {
		t.Errorf("the first jarvisbot's board does not show the app's calls:\n%s", board)
	}
}

// TestAppsNeedTheirKeyAndTheOwnersApprovalM4C2: no key, a wrong key and a
// revoked key are refused before any MCP; a read key sees no work tools
// and cannot call one; a job that calls an ask-tier tool waits for the
// owner's buttons in Telegram, its own app cannot approve it, and the
// owner's press completes it.
func TestAppsNeedTheirKeyAndTheOwnersApprovalM4C2(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	e.mustJarvis(t, "", "cli", "add", "echo")
	ops := addApp(t, e, "ops", "full")
	viewer := addApp(t, e, "viewer", "read")
	gone := addApp(t, e, "gone", "full")
	e.mustJarvis(t, "", "apps", "revoke", "gone")
	url, _, stop := serveWithSurface(t, e)
	defer stop()

	for name, header := range map[string]string{"no key": "", "a wrong key": "Bearer jbk_wrong", "a revoked key": "Bearer " + gone} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if header != "" {
			req.Header.Set("Authorization", header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: %s, want 401", name, resp.Status)
		}
	}

	read := appClient(t, url, viewer)
	tools, err := read.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name == "job_post" || tl.Name == "approval_resolve" {
			t.Errorf("a read key lists %s", tl.Name)
		}
	}
	if text, isErr := callApp(t, read, "job_post", map[string]any{"text": "do something"}); !isErr || !strings.Contains(text, "scope") {
		t.Errorf("a read key posting a job: %q (error %v)", text, isErr)
	}

	app := appClient(t, url, ops)
	f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("cli:echo"), Input: `{"args":["from","an","app"]}`}}}, fakellm.Step{Text: "Echoed for the app."})
	text, isErr := callApp(t, app, "job_post", map[string]any{"text": "run echo for me"})
	var job struct{ ID string }
	if isErr || json.Unmarshal([]byte(text), &job) != nil || job.ID == "" {
		t.Fatalf("job_post: %q", text)
	}
	msgID, approve := approvalPrompt(t, tg, "the approval prompt in the owner's chat", "cli:echo")
	var approvalID string
	pollApp(t, "the job to wait for the owner", func() (bool, any) {
		text, _ := callApp(t, app, "job_get", map[string]any{"id": job.ID})
		var j struct {
			State      string `json:"state"`
			ApprovalID string `json:"approval_id"`
		}
		_ = json.Unmarshal([]byte(text), &j)
		approvalID = j.ApprovalID
		return j.State == "waiting_approval" && approvalID != "", text
	})
	if text, isErr := callApp(t, app, "approval_resolve", map[string]any{"id": approvalID, "decision": "approve"}); !isErr || !strings.Contains(strings.ToLower(text), "own") {
		t.Errorf("the app approving its own request: %q (error %v)", text, isErr)
	}
	tg.Press(42, 42, msgID, approve)
	pollApp(t, "the job to finish after the owner's press", func() (bool, any) {
		text, _ := callApp(t, app, "job_get", map[string]any{"id": job.ID})
		return strings.Contains(text, `"state":"done"`) && strings.Contains(text, "Echoed for the app."), text
	})

	// pause_all: the owner's message waits, and no scheduled skill runs,
	// until resume_all.
	if text, isErr := callApp(t, app, "pause_all", nil); isErr {
		t.Fatalf("pause_all: %s", text)
	}
	tg.SendText(42, 42, "are you there?")
	waitSent(t, tg, "the notice that jarvisbot is paused", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Paused by app ops") })
	if code, out, errOut := e.jarvis(t, "", "schedule", "run", "morning-brief"); code == 0 || !strings.Contains(out+errOut, "paused") {
		t.Errorf("a scheduled skill ran while paused: exit %d\n%s\n%s", code, out, errOut)
	}
	f.Push(fakellm.Step{Text: "Here again."})
	if text, isErr := callApp(t, app, "resume_all", nil); isErr {
		t.Fatalf("resume_all: %s", text)
	}
	waitSent(t, tg, "the waiting message answered after resume_all", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Here again.") })
}

// stdioApp runs `jarvisbot mcp serve` on pipes, as a client that launches
// the command would, and returns an initialized client of it.
func stdioApp(t *testing.T, e *testEnv) *client.Client {
	t.Helper()
	toBridge, clientOut := io.Pipe()
	clientIn, fromBridge := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), []string{"mcp", "serve"}, e.app(toBridge, fromBridge, io.Discard))
		_ = fromBridge.Close()
	}()
	c := client.NewClient(transport.NewIO(clientIn, clientOut, nil))
	t.Cleanup(func() {
		_ = clientOut.Close() // its stdin ends: it returns
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("jarvisbot mcp serve did not end with its input")
		}
		_ = c.Close()
	})
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "launcher", Version: "1"}
	if _, err := c.Initialize(t.Context(), req); err != nil {
		t.Fatalf("initialize over stdio: %v", err)
	}
	return c
}

// TestMCPServeStdioM4: `jarvisbot mcp serve` answers even when the service
// is down, with one tool that says so; with the service up it forwards
// the key's tools.
func TestMCPServeStdioM4(t *testing.T) {
	e, _, _ := ownerOnTelegram(t)
	e.vars["JARVIS_APP_KEY"] = addApp(t, e, "desktop", "read")
	e.vars["JARVIS_MCP_LISTEN"] = "127.0.0.1:1" // nothing listens there
	down := stdioApp(t, e)
	tools, err := down.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil || len(tools.Tools) != 1 {
		t.Fatalf("with the service down: %v tools, %v", tools, err)
	}
	if text, _ := callApp(t, down, tools.Tools[0].Name, nil); !strings.Contains(text, "jarvisbot serve") {
		t.Errorf("the one tool says %q, want how to start the service", text)
	}

	url, _, stop := serveWithSurface(t, e)
	defer stop()
	e.vars["JARVIS_MCP_LISTEN"] = strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	up := stdioApp(t, e)
	tools, err = up.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil || len(tools.Tools) < 9 {
		t.Fatalf("with the service up: %d tools, %v", len(tools.Tools), err)
	}
	if text, isErr := callApp(t, up, "agents_list", nil); isErr || !strings.Contains(text, `"default"`) {
		t.Errorf("agents_list over stdio: %q", text)
	}
}

// TestAppNotifiesAndRunsAScheduledSkillM4: through a running serve, an
// app's notify_owner reaches the owner's chat marked as from that app,
// and its schedule_run runs a scheduled skill now, as its schedule would:
// the report goes to the owner's chat and the app hears how the run went;
// an empty notice and an unknown skill are refused as such.
func TestAppNotifiesAndRunsAScheduledSkillM4(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	key := addApp(t, e, "builds", "work")
	url, _, stop := serveWithSurface(t, e)
	defer stop()
	app := appClient(t, url, key)

	if text, isErr := callApp(t, app, "notify_owner", map[string]any{"text": "The nightly build is green."}); isErr {
		t.Fatalf("notify_owner: %s", text)
	}
	waitSent(t, tg, "the app's notice in the owner's chat", func(s []faketelegram.Sent) bool {
		return hasText(s, 42, "From app builds:") && hasText(s, 42, "The nightly build is green.")
	})
	if text, isErr := callApp(t, app, "notify_owner", map[string]any{"text": "  "}); !isErr || !strings.Contains(text, "text") {
		t.Errorf("an empty notice: %q (error %v)", text, isErr)
	}

	f.Push(fakellm.Step{Text: "Brief: two meetings, no mail that needs you."})
	text, isErr := callApp(t, app, "schedule_run", map[string]any{"skill": "morning-brief"})
	if isErr || !strings.Contains(text, "morning-brief ran: ok") {
		t.Errorf("schedule_run: %q (error %v)", text, isErr)
	}
	waitSent(t, tg, "the run's report in the owner's chat", func(s []faketelegram.Sent) bool { return hasText(s, 42, "two meetings") })
	if text, isErr := callApp(t, app, "schedule_run", map[string]any{"skill": "no-such-skill"}); !isErr || !strings.Contains(text, "no-such-skill") {
		t.Errorf("an unknown skill: %q (error %v)", text, isErr)
	}
}
