package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
)

// TestChatConsoleA2: chat -m answers through the configured provider, and
// an ask-tier call is approved at the console prompt.
func TestChatConsoleA2(t *testing.T) {
	for _, p := range []string{"anthropic", "openai"} {
		t.Run(p, func(t *testing.T) {
			e := newTestEnv(t)
			f := withModel(t, e)
			e.vars["JARVIS_PROVIDER"], e.vars["JARVIS_MODEL"] = p, "test-model"
			if p == "anthropic" {
				e.vars["ANTHROPIC_API_KEY"], e.vars["ANTHROPIC_BASE_URL"] = "test-key", f.AnthropicURL()
			} else {
				e.vars["OPENAI_API_KEY"], e.vars["OPENAI_BASE_URL"] = "test-key", f.OpenAIURL()
			}
			f.Push(fakellm.Step{Text: "Hi, I am here."})
			code, out, errOut := e.jarvis(t, "", "chat", "-m", "hello")
			if code != 0 || !strings.Contains(out, "Hi, I am here.") {
				t.Fatalf("chat -m: exit %d\n%s\n%s", code, out, errOut)
			}
			e.mustJarvis(t, "", "cli", "add", "echo")
			f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("cli:echo"), Input: `{"args":["approved","call"]}`}}}, fakellm.Step{Text: "Done."})
			code, out, errOut = e.jarvisAnswering(t, "y", "chat", "-m", "run echo")
			if code != 0 || !strings.Contains(out, "Approval needed: Run the program echo\nargs: \\[\"approved\",\"call\"\\]\nAsked by agent default · cli:echo\nApprove? It expires at ") || !strings.Contains(out, "Done.") {
				t.Fatalf("approval at the console: exit %d\n%s\n%s", code, out, errOut)
			}
			reqs := f.Requests()
			last := reqs[len(reqs)-1]
			found := false
			for _, m := range last.Messages {
				for _, r := range m.ToolResults {
					found = found || strings.Contains(r, "approved call")
				}
			}
			if !found {
				t.Errorf("the approved call's output did not reach the model: %+v", last.Messages)
			}
			if p == "anthropic" { // "always" at the prompt, then revoked
				f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("cli:echo"), Input: `{"args":["x"]}`}}}, fakellm.Step{Text: "ok"})
				e.jarvisAnswering(t, "a", "chat", "-m", "run echo again")
				if _, out, _ := e.jarvis(t, "", "approvals", "grants"); !strings.Contains(out, "cli:echo") {
					t.Errorf("grants: %s", out)
				}
				if code, _, _ := e.jarvis(t, "", "approvals", "revoke", "cli:echo"); code != 0 {
					t.Error("revoke")
				}
			}
			_, out, _ = e.jarvis(t, "", "activity", "--json")
			if !strings.Contains(out, `"tool":"cli:echo"`) {
				t.Errorf("activity: %s", out)
			}
		})
	}
}

// TestTypedAheadNeverApprovesCH2: an answer that was on stdin before the
// approval was asked (typed ahead, piped, pasted with the message) never
// approves: the request is denied at the end of input, and the tool does
// not run.
func TestTypedAheadNeverApprovesCH2(t *testing.T) {
	e := newTestEnv(t)
	f := withModel(t, e)
	e.mustJarvis(t, "", "cli", "add", "echo")
	f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("cli:echo"), Input: `{"args":["typed","ahead"]}`}}}, fakellm.Step{Text: "Not run."})
	code, out, errOut := e.jarvis(t, "y\nyes\n", "chat", "-m", "run echo")
	if code != 0 || !strings.Contains(out, `"y" came before the question`) || !strings.Contains(out, "denied") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if _, act, _ := e.jarvis(t, "", "activity", "--json"); strings.Contains(act, `"outcome":"ok"`) || !strings.Contains(act, `"outcome":"denied"`) {
		t.Errorf("a typed-ahead line approved the call: %s", act)
	}
}

// jarvisAnswering runs a command whose stdin types answer (and a newline)
// once the command has asked for approval, as the owner at a terminal
// does, then ends the input.
func (e *testEnv) jarvisAnswering(t *testing.T, answer string, args ...string) (int, string, string) {
	t.Helper()
	inR, inW := io.Pipe()
	out, errb := &syncBuffer{}, &syncBuffer{}
	finished := make(chan struct{})
	var code int
	go func() {
		defer close(finished)
		code = run(context.Background(), args, e.app(inR, out, errb))
	}()
	ended := false
	waitFor(t, "an approval to be asked", func() (bool, any) {
		select {
		case <-finished:
			ended = true
			return true, nil
		default:
		}
		return strings.Contains(out.String(), "Approve?"), "output:\n" + out.String() + "\nerrors:\n" + errb.String()
	})
	if ended {
		inW.Close()
		return code, out.String(), errb.String()
	}
	io.WriteString(inW, answer+"\n")
	<-finished
	inW.Close()
	return code, out.String(), errb.String()
}

// TestChatWithoutModel: with no provider the console says what to set.
func TestChatWithoutModel(t *testing.T) {
	e := newTestEnv(t)
	code, _, errOut := e.jarvis(t, "", "chat", "-m", "hello")
	if code != 2 || !strings.Contains(errOut, "ANTHROPIC_API_KEY") || !strings.Contains(errOut, "OPENAI_BASE_URL") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if code, _, _ := e.jarvis(t, "", "route", "hello"); code != 0 {
		t.Error("route needs no model")
	}
}

// TestAgentsA1: an agent described by the service it owns gets that focus;
// edit, list and remove work; the default agent stays.
func TestAgentsA1(t *testing.T) {
	e := newTestEnv(t)
	code, out, errOut := e.jarvis(t, "", "agents", "add", "notes", "--describe", "keeps my wiki notes tidy")
	if code != 0 || !strings.Contains(out, "focus: builtin:wiki") {
		t.Fatalf("add: %d %s %s", code, out, errOut)
	}
	if code, out, _ := e.jarvis(t, "", "agents", "edit", "notes", "--block", "cli:*"); code != 0 || !strings.Contains(out, "block: cli:*") {
		t.Errorf("edit: %s", out)
	}
	_, out, _ = e.jarvis(t, "", "agents", "list")
	if !strings.Contains(out, "default") || !strings.Contains(out, "notes") {
		t.Errorf("list: %s", out)
	}
	if code, _, _ := e.jarvis(t, "", "agents", "add", "notes", "--describe", "again"); code == 0 {
		t.Error("duplicate accepted")
	}
	if code, _, _ := e.jarvis(t, "", "agents", "remove", "default"); code == 0 {
		t.Error("default removed")
	}
	if code, _, _ := e.jarvis(t, "", "agents", "remove", "notes"); code != 0 {
		t.Error("remove")
	}
}

// TestChatIsTheConsoleChannelCH1: chat is serve's console, not a loop of
// its own: slash commands answer, an approval is a numbered choice as in
// serve, and /quit ends the conversation.
func TestChatIsTheConsoleChannelCH1(t *testing.T) {
	e := newTestEnv(t)
	f := withModel(t, e)
	e.mustJarvis(t, "", "cli", "add", "echo")
	c := startTerminal(e, "chat")
	out, say, done := c.out, c.say, c.done
	waitOutput(t, out, "talking to agent default")
	say("/help")
	waitOutput(t, out, "/cancel — stop the answer in progress")
	say("/agents")
	waitOutput(t, out, "default — ")
	f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("cli:echo"), Input: `{"args":["by","number"]}`}}}, fakellm.Step{Text: "Echoed by number."})
	say("echo by number")
	waitOutput(t, out, "[1] Approve")
	say("1")
	waitOutput(t, out, "Echoed by number.")
	say("/quit")
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d:\n%s", code, out.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("/quit did not end chat:\n%s", out.String())
	}
	c.in.Close()
	if n := len(f.Requests()); n != 2 {
		t.Errorf("%d model calls, want 2 (the slash commands are not the model's)", n)
	}
}
