package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
)

// The black-box tests run the built binary as a user would: a process
// with its own environment, stopped by a signal or killed.

var (
	jarvisOnce sync.Once
	jarvisBin  string
	jarvisErr  error
)

// jarvisBinary builds cmd/jarvisbot once per test run, as the product is
// built (CGO_ENABLED=0).
func jarvisBinary(t testing.TB) string {
	t.Helper()
	jarvisOnce.Do(func() {
		dir, err := os.MkdirTemp("", "jarvisbot-bin")
		if err != nil {
			jarvisErr = err
			return
		}
		jarvisBin = filepath.Join(dir, "jarvisbot")
		cmd := exec.Command("go", "build", "-o", jarvisBin, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			jarvisErr = err
			t.Logf("%s", out)
		}
	})
	if jarvisErr != nil {
		t.Fatalf("building jarvisbot: %v", jarvisErr)
	}
	return jarvisBin
}

// proc is jarvisbot running as a child process.
type proc struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
	err  error
}

// environ is the test environment as a process environment: nothing of
// the test process's own leaks in but PATH.
func (e *testEnv) environ() []string {
	env := []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range e.vars {
		env = append(env, k+"="+v)
	}
	return env
}

// startProc starts the binary with args in the environment; stdin nil
// is an empty input.
func startProc(t testing.TB, e *testEnv, stdin io.Reader, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(jarvisBinary(t), args...), out: &syncBuffer{}, done: make(chan struct{})}
	p.cmd.Env = e.environ()
	p.cmd.Stdin = stdin
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// wait waits for the process to end, up to limit.
func (p *proc) wait(t testing.TB, limit time.Duration) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(limit):
		t.Fatalf("jarvisbot did not end within %s; output:\n%s", limit, p.out.String())
	}
}

// signal sends sig and waits for the process to end.
func (p *proc) stop(t testing.TB, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	p.wait(t, 60*time.Second)
}

// runProc runs the binary to its end and returns its exit code and output.
func runProc(t *testing.T, e *testEnv, stdin string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(jarvisBinary(t), args...)
	cmd.Env = e.environ()
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, out.String()
}

// TestBlackBoxApprovalAcrossRestartCH2: an ask-tier call waits for the
// owner when jarvisbot is stopped (SIGTERM) or killed (kill -9); after the
// restart one press on the prompt the owner already has runs the tool once
// and brings the answer to the chat: no second prompt, no second run.
func TestBlackBoxApprovalAcrossRestartCH2(t *testing.T) {
	tools := []struct{ id, args, add, result, msg string }{
		{"cli:echo", `{ "args": [ "survived" ] }`, "cli add echo", "survived", "run echo"},
		{"mcp:testbox/delete_everything", `{}`, "mcp add testbox --", "deleted nothing", "ask testbox to delete everything"},
	}
	for _, tool := range tools {
		for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
			t.Run(tool.id+"/"+sig.String(), func(t *testing.T) {
				e, f, tg := ownerOnTelegram(t)
				add := strings.Fields(tool.add)
				if strings.HasPrefix(tool.id, "mcp:") {
					add = append(add, mcpTestServer(t))
				}
				if code, out := runProc(t, e, "", add...); code != 0 {
					t.Fatal(out)
				}
				p := startProc(t, e, nil, "serve")
				waitOutput(t, p.out, "jarvisbot is ready")
				f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName(tool.id), Input: tool.args}}})
				tg.SendText(42, 42, tool.msg)
				prompts := func(s []faketelegram.Sent) []faketelegram.Sent {
					var out []faketelegram.Sent
					for _, m := range s {
						if m.Method == "sendMessage" && strings.Contains(m.Text, "Approval needed") {
							out = append(out, m)
						}
					}
					return out
				}
				waitSent(t, tg, "the approval prompt", func(s []faketelegram.Sent) bool { return len(prompts(s)) == 1 })
				first := prompts(tg.Sent())[0]
				p.stop(t, sig)

				f.Push(fakellm.Step{Text: "It said: survived."})
				p2 := startProc(t, e, nil, "serve")
				// A wait that gives up ends the test at once: the runs'
				// logs are what tell why.
				t.Cleanup(func() {
					if t.Failed() {
						t.Logf("first run:\n%s\nsecond run:\n%s", p.out.String(), p2.out.String())
					}
				})
				waitOutput(t, p2.out, "jarvisbot is ready")
				tg.Press(42, 42, first.MessageID, first.Buttons[0][0].Data)
				waitSent(t, tg, "the answer after the restart", func(s []faketelegram.Sent) bool { return hasText(s, 42, "It said: survived.") })
				p2.stop(t, syscall.SIGTERM)

				if n := len(prompts(tg.Sent())); n != 1 {
					t.Errorf("%d approval prompts for one request; want 1: %+v", n, tg.Sent())
				}
				answers := 0
				for _, m := range tg.Sent() {
					if m.Method == "sendMessage" && strings.Contains(m.Text, "It said: survived.") {
						answers++
					}
				}
				if answers != 1 {
					t.Errorf("the answer was sent %d times; want once", answers)
				}
				if m, ok := tg.Message(42, first.MessageID); !ok || !strings.Contains(m.Text, "Approved") || len(m.Buttons) != 0 {
					t.Errorf("the prompt after the press: %+v", m)
				}
				_, act := runProc(t, e, "", "activity", "--json")
				if n := strings.Count(act, `"tool":"`+tool.id+`"`); n != 1 {
					t.Errorf("%s ran %d times; want once. activity: %s", tool.id, n, act)
				}
				reqs := f.Requests()
				if !strings.Contains(fmt.Sprint(reqs[len(reqs)-1].Messages), tool.result) {
					t.Errorf("the tool's output did not reach the model: %+v", reqs[len(reqs)-1].Messages)
				}
			})
		}
	}
}

// TestBlackBoxChatWaitsForStartingServerC5: route says a hand-added stdio
// server is offered for a message; `chat -m` with the same message sends
// the model that server's tool, although the server takes a while to
// start. With every server kept running (JARVIS_MCP_IDLE_TIMEOUT=0) it
// is started with the process, and the one-shot turn waits for the
// server its message wants; by default its tools, listed when it was
// added, are offered at once, and the turn starts it while the model
// thinks.
func TestBlackBoxChatWaitsForStartingServerC5(t *testing.T) {
	for _, tc := range []struct {
		name, idle, logs string
	}{
		{"kept running", "0", "waiting for MCP servers this turn wants"},
		{"started on use", "", "starting an idle MCP server for a request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEnv(t)
			if tc.idle != "" {
				e.vars["JARVIS_MCP_IDLE_TIMEOUT"] = tc.idle
			}
			f := withModel(t, e)
			// The server starts once the test lets it: it is still starting
			// when the turn is prepared, however fast or slow the machine.
			dir := t.TempDir()
			slow, gate := filepath.Join(dir, "slow-server"), filepath.Join(dir, "go")
			script := "#!/bin/sh\nwhile [ ! -e " + gate + " ]; do sleep 0.05; done\nexec " + mcpTestServer(t) + " \"$@\"\n"
			if err := os.WriteFile(slow, []byte(script), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(gate, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if code, out := runProc(t, e, "", "mcp", "add", "testbox", "--", slow); code != 0 {
				t.Fatal(out)
			}
			if err := os.Remove(gate); err != nil {
				t.Fatal(err)
			}
			const msg = "ask testbox to echo hello"
			code, out := runProc(t, e, "", "route", "--json", msg)
			if code != 0 || !strings.Contains(out, `"server":"testbox","offered":true`) {
				t.Fatalf("route does not offer testbox for %q (exit %d):\n%s", msg, code, out)
			}
			f.Push(fakellm.Step{Text: "Done."})
			p := startProc(t, e, nil, "chat", "-m", msg)
			waitOutput(t, p.out, tc.logs)
			if err := os.WriteFile(gate, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			p.wait(t, 60*time.Second)
			if p.err != nil || !strings.Contains(p.out.String(), "Done.") {
				t.Fatalf("chat -m: %v\n%s", p.err, p.out.String())
			}
			reqs := f.Requests()
			if len(reqs) != 1 || !slices.Contains(reqs[0].Tools, llm.WireName("mcp:testbox/echo")) {
				t.Fatalf("the model was not offered testbox's echo; tools: %v", reqs[0].Tools)
			}
		})
	}
}

// TestBlackBoxShutdownDrainsX4: serve stops taking messages at the end of
// console input, at SIGINT and at SIGTERM, and lets the answer in progress
// finish before it closes the store. The model holds its answer until
// serve has begun to stop, so the answer is in progress then however fast
// or slow the machine.
func TestBlackBoxShutdownDrainsX4(t *testing.T) {
	// answerWhenStopping waits for serve to begin stopping, then lets the
	// model answer, and waits for the process to end.
	answerWhenStopping := func(t *testing.T, p *proc, release chan struct{}) {
		t.Helper()
		waitOutput(t, p.out, "stopping: no new messages")
		close(release)
		p.wait(t, 60*time.Second)
	}
	t.Run("end of console input", func(t *testing.T) {
		e := newTestEnv(t)
		f := withModel(t, e)
		release := make(chan struct{})
		f.Push(fakellm.Step{Text: "An answer worth waiting for.", Release: release})
		in, typed := io.Pipe()
		p := startProc(t, e, in)
		t.Cleanup(func() { typed.Close() }) // before the kill: Wait waits for stdin's copy to end
		io.WriteString(typed, "what time is it?\n")
		waitFor(t, "the model call", func() (bool, any) { r := f.Requests(); return len(r) == 1, r })
		typed.Close()
		answerWhenStopping(t, p, release)
		out := p.out.String()
		if p.err != nil || !strings.Contains(out, "An answer worth waiting for.") {
			t.Fatalf("exit %v; the answer in progress was dropped at the end of input:\n%s", p.err, out)
		}
		if strings.Contains(out, "database is closed") {
			t.Errorf("the store closed under a turn:\n%s", out)
		}
	})
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			e, f, tg := ownerOnTelegram(t)
			p := startProc(t, e, nil, "serve")
			waitOutput(t, p.out, "jarvisbot is ready")
			release := make(chan struct{})
			f.Push(fakellm.Step{Text: "Finished before stopping.", Release: release})
			tg.SendText(42, 42, "a question")
			waitFor(t, "the model call", func() (bool, any) { r := f.Requests(); return len(r) == 1, r })
			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			answerWhenStopping(t, p, release)
			if !hasText(tg.Sent(), 42, "Finished before stopping.") {
				t.Errorf("the answer in progress was not sent before exit: %+v\n%s", tg.Sent(), p.out.String())
			}
			if p.err != nil || strings.Contains(p.out.String(), "database is closed") {
				t.Errorf("exit: %v\n%s", p.err, p.out.String())
			}
		})
	}
}

// TestBlackBoxShutdownDeadlineX4: an answer that does not finish within
// shutdown_timeout is stopped; the message is kept and answered once after
// the restart.
func TestBlackBoxShutdownDeadlineX4(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	e.vars["JARVIS_SHUTDOWN_TIMEOUT"] = "300ms"
	p := startProc(t, e, nil, "serve")
	waitOutput(t, p.out, "jarvisbot is ready")
	f.Push(fakellm.Step{Hang: true})
	tg.SendText(42, 42, "a hard question")
	waitFor(t, "the model call", func() (bool, any) { r := f.Requests(); return len(r) == 1, r })
	p.stop(t, syscall.SIGTERM)
	if p.err != nil {
		t.Fatalf("exit: %v\n%s", p.err, p.out.String())
	}
	f.Push(fakellm.Step{Text: "Answered after the restart."})
	p2 := startProc(t, e, nil, "serve")
	waitSent(t, tg, "the answer after the restart", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Answered after the restart.") })
	p2.stop(t, syscall.SIGTERM)
	n := 0
	for _, m := range tg.Sent() {
		if m.Method == "sendMessage" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d messages sent; want the one answer: %+v", n, tg.Sent())
	}
	// The model saw the question once in the history, not twice.
	reqs := f.Requests()
	if got := strings.Count(fmt.Sprint(reqs[len(reqs)-1].Messages), "a hard question"); got != 1 {
		t.Errorf("the question is %d times in the history: %+v", got, reqs[len(reqs)-1].Messages)
	}
}

// waitFor polls cond until it holds; after 15 s it fails the test, naming
// what it waited for and what cond last saw. It is the package's one
// waiter: waitOutput and waitSent are made of it.
func waitFor(t testing.TB, what string, cond func() (ok bool, saw any)) {
	t.Helper()
	testwait.For(t, 15*time.Second, what, cond)
}
