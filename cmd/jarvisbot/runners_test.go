package main

import (
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
)

// TestChatRunsEveryBuiltinA2: the service registers a runner for each
// builtin it offers, so a turn's calls of builtin:wiki and builtin:skills
// run (the runtime knows neither; a builtin without a runner would answer
// "cannot be run here").
func TestChatRunsEveryBuiltinA2(t *testing.T) {
	e := newTestEnv(t)
	f := withModel(t, e)
	f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{
		{Name: llm.WireName("builtin:wiki"), Input: `{"action":"write","name":"ideas","body":"a runner per kind"}`},
		{Name: llm.WireName("builtin:skills"), Input: `{"action":"list"}`},
	}}, fakellm.Step{Text: "Noted."})
	code, out, errOut := e.jarvis(t, "", "chat", "-m", "note my idea and list my skills")
	if code != 0 || !strings.Contains(out, "Noted.") {
		t.Fatalf("chat -m: exit %d\n%s\n%s", code, out, errOut)
	}
	reqs := f.Requests()
	var results []string
	for _, m := range reqs[len(reqs)-1].Messages {
		results = append(results, m.ToolResults...)
	}
	if len(results) != 2 || !strings.Contains(results[0], "saved ideas") || !strings.Contains(results[1], "skills") || strings.Contains(results[1], "cannot be run") {
		t.Errorf("tool results %q, want the wiki's and the skillbook's answers", results)
	}
}
