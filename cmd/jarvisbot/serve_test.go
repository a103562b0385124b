package main

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/fakellm"
	"github.com/jarvisbot/jarvisbot/llm"
)

// syncBuffer is a strings.Builder safe for a writer and a poller.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func waitOutput(t *testing.T, out *syncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %q in:\n%s", want, out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestServeConsoleCH1: jarvisbot with no arguments and no bot token serves
// the console: messages are answered, commands work, and an approval is
// a numbered choice.
func TestServeConsoleCH1(t *testing.T) {
	e := newTestEnv(t)
	f := fakellm.New(t)
	e.vars["JARVIS_PROVIDER"], e.vars["JARVIS_MODEL"] = "anthropic", "test-model"
	e.vars["ANTHROPIC_API_KEY"], e.vars["ANTHROPIC_BASE_URL"] = "test-key", f.AnthropicURL()
	if code, _, _ := e.jarvis(t, "", "cli", "add", "echo"); code != 0 {
		t.Fatal("cli add")
	}
	inR, inW := io.Pipe()
	out := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- run(ctx, nil, &app{stdin: inR, stdout: out, stderr: out, getenv: e.getenv}) }()
	say := func(s string) { io.WriteString(inW, s+"\n") }

	waitOutput(t, out, "listening here")
	f.Push(fakellm.Step{Text: "Hello from the console."})
	say("hi")
	waitOutput(t, out, "Hello from the console.")
	say("/help")
	waitOutput(t, out, "/cancel")
	f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("cli:echo"), Input: `{"args":["via","buttons"]}`}}}, fakellm.Step{Text: "Echoed."})
	say("echo via buttons")
	waitOutput(t, out, "[1] Approve")
	say("1")
	waitOutput(t, out, "Echoed.")
	if !strings.Contains(out.String(), "Approved") {
		t.Errorf("no outcome shown:\n%s", out.String())
	}
	cancel()
	inW.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
}

// TestScheduleCLI_SC1: the shipped morning brief is listed with its next
// run; schedule run NAME runs it now and prints the report; pause shows.
func TestScheduleCLI_SC1(t *testing.T) {
	e := newTestEnv(t)
	f := fakellm.New(t)
	e.vars["JARVIS_PROVIDER"], e.vars["JARVIS_MODEL"] = "anthropic", "test-model"
	e.vars["ANTHROPIC_API_KEY"], e.vars["ANTHROPIC_BASE_URL"] = "test-key", f.AnthropicURL()
	code, out, errOut := e.jarvis(t, "", "schedule", "list")
	if code != 0 || !strings.Contains(out, "morning-brief") || !strings.Contains(out, "0 7 * * *") || !strings.Contains(out, "never") {
		t.Fatalf("list: %d\n%s\n%s", code, out, errOut)
	}
	f.Push(fakellm.Step{Text: "Good morning: two meetings today."})
	code, out, errOut = e.jarvis(t, "", "schedule", "run", "morning-brief")
	if code != 0 || !strings.Contains(out, "Good morning: two meetings today.") {
		t.Fatalf("run: %d\n%s\n%s", code, out, errOut)
	}
	if reqs := f.Requests(); !strings.Contains(reqs[0].Messages[len(reqs[0].Messages)-1].Text, "morning-brief") {
		t.Errorf("the turn did not name the skill: %+v", reqs[0].Messages)
	}
	e.jarvis(t, "", "schedule", "pause", "morning-brief")
	_, out, _ = e.jarvis(t, "", "schedule", "list")
	if !strings.Contains(out, "paused") || !strings.Contains(out, "ok, report sent") {
		t.Errorf("list after run and pause:\n%s", out)
	}
}
