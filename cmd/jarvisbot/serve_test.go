package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakediscord"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
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

// waitOutput waits until out holds want.
func waitOutput(t testing.TB, out *syncBuffer, want string) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%q in the output", want), func() (bool, any) {
		got := out.String()
		return strings.Contains(got, want), "output:\n" + got
	})
}

// TestServeConsoleCH1: jarvisbot with no arguments and no bot token serves
// the console: messages are answered, commands work, and an approval is
// a numbered choice.
func TestServeConsoleCH1(t *testing.T) {
	e := newTestEnv(t)
	f := withModel(t, e)
	e.mustJarvis(t, "", "cli", "add", "echo")
	c := startTerminal(e)
	out, say := c.out, c.say
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
	c.stop()
	c.in.Close()
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
}

// TestScheduleCLI_SC1: the shipped morning brief is listed with its next
// run; schedule run NAME runs it now and prints the report; pause shows.
func TestScheduleCLI_SC1(t *testing.T) {
	e := newTestEnv(t)
	f := withModel(t, e)
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
	// A skill switched off is not scheduled at all.
	e.jarvis(t, "", "skills", "off", "morning-brief")
	if _, out, _ := e.jarvis(t, "", "schedule", "list"); strings.Contains(out, "morning-brief") {
		t.Errorf("a disabled skill is scheduled:\n%s", out)
	}
	if code, _, _ := e.jarvis(t, "", "schedule", "run", "morning-brief"); code == 0 {
		t.Error("a disabled skill ran")
	}
}

// TestServeTelegramCH1: with a Telegram token, serve answers the owner in
// Telegram, refuses a stranger once, and approvals arrive as buttons.
func TestServeTelegramCH1(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	e.mustJarvis(t, "", "cli", "add", "echo")
	out, stopServe := startServe(t, e)
	defer stopServe()
	waitOutput(t, out, "jarvisbot is ready")
	f.Push(fakellm.Step{Text: "Hi from Telegram."})
	tg.SendText(42, 42, "hello")
	tg.SendText(7, 7, "who are you?")
	waitSent(t, tg, "the owner's answer and the stranger's refusal", func(s []faketelegram.Sent) bool {
		return hasText(s, 42, "Hi from Telegram.") && hasText(s, 7, "private assistant")
	})
	f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("cli:echo"), Input: `{"args":["from","telegram"]}`}}}, fakellm.Step{Text: "Done in Telegram."})
	tg.SendText(42, 42, "run echo")
	var approvalMsg int
	var approve string
	waitSent(t, tg, "the approval prompt", func(s []faketelegram.Sent) bool {
		for _, m := range s {
			if m.ChatID == 42 && strings.Contains(m.Text, "Approval needed") && len(m.Buttons) > 0 {
				approvalMsg, approve = m.MessageID, m.Buttons[0][0].Data
				return true
			}
		}
		return false
	})
	tg.Press(42, 7, approvalMsg, approve) // a stranger: told so, nothing changes
	tg.WaitAnswers(t, 1, 5*time.Second)
	tg.Press(42, 42, approvalMsg, approve)
	waitSent(t, tg, "the answer after the approval", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Done in Telegram.") })
	answers := tg.Answers()
	if !strings.Contains(answers[0].Text, "Only the owner") {
		t.Errorf("stranger's tap answered %q", answers[0].Text)
	}
	// The approval message was edited to the outcome, buttons gone.
	if m, ok := tg.Message(42, approvalMsg); !ok || !strings.Contains(m.Text, "Approved") || len(m.Buttons) != 0 {
		t.Errorf("approval message after the decision: %+v", m)
	}
}

func hasText(sent []faketelegram.Sent, chat int64, text string) bool {
	for _, m := range sent {
		if m.ChatID == chat && strings.Contains(m.Text, text) {
			return true
		}
	}
	return false
}

// waitSent waits until what the bot sent to Telegram satisfies cond.
func waitSent(t *testing.T, tg *faketelegram.Server, what string, cond func([]faketelegram.Sent) bool) {
	t.Helper()
	waitFor(t, what+" on Telegram", func() (bool, any) {
		sent := tg.Sent()
		return cond(sent), sent
	})
}

// TestLoadTelegramCH1: 200 chats × 5 messages through the fake Telegram
// server and the scripted model: every message answered, each chat's in
// order. It logs the throughput.
func TestLoadTelegramCH1(t *testing.T) {
	const chats, per = 200, 5
	e := newTestEnv(t)
	f := withModel(t, e)
	tg := withTelegram(t, e)
	e.vars["JARVIS_LOG_LEVEL"] = "error"
	var owners []string
	for c := 1; c <= chats; c++ {
		owners = append(owners, fmt.Sprint(1000+c))
	}
	e.vars["JARVIS_TELEGRAM_OWNERS"] = strings.Join(owners, ",")
	for range chats * per {
		f.Push(fakellm.Step{Text: "ok"})
	}
	_, stopServe := startServe(t, e)
	defer stopServe()
	waitFor(t, "the first poll of Telegram", func() (bool, any) { n := tg.Calls("getUpdates"); return n > 0, fmt.Sprintf("%d polls", n) })
	start := time.Now()
	for i := range per {
		for c := 1; c <= chats; c++ {
			tg.SendText(int64(1000+c), int64(1000+c), fmt.Sprintf("chat %d message %d", c, i))
		}
	}
	testwait.For(t, 2*time.Minute, fmt.Sprintf("%d answers", chats*per), func() (bool, any) {
		n := 0
		for _, s := range tg.Sent() {
			if s.Method == "sendMessage" {
				n++
			}
		}
		return n >= chats*per, fmt.Sprintf("%d answers", n)
	}, testwait.WithInterval(20*time.Millisecond))
	took := time.Since(start)
	for _, s := range tg.Sent() {
		if s.Method == "sendMessage" && s.Text != "ok" {
			t.Errorf("an answer that is not the model's: chat %d: %s", s.ChatID, s.Text)
			break
		}
	}
	// Per chat, the model saw the messages in the order they were sent.
	seen := map[string][]string{}
	for _, r := range f.Requests() {
		first, last := r.Messages[0].Text, r.Messages[len(r.Messages)-1].Text
		seen[strings.Join(strings.Fields(first)[:2], " ")] = append(seen[strings.Join(strings.Fields(first)[:2], " ")], last)
	}
	if len(seen) != chats {
		t.Fatalf("%d chats reached the model", len(seen))
	}
	for chat, msgs := range seen {
		for i, m := range msgs {
			if m != fmt.Sprintf("%s message %d", chat, i) {
				t.Fatalf("%s out of order: %v", chat, msgs)
			}
		}
	}
	t.Logf("%d messages in %s: %.0f messages/s", chats*per, took.Round(time.Millisecond), float64(chats*per)/took.Seconds())
}

// TestEndToEndTelegramDiscordCH2: a Telegram message → the agent → an
// ask-tier tool on the MCP test server → buttons on Discord → a stranger's
// click changes nothing, the owner's runs the tool → the answer arrives in
// Telegram, and the Discord message shows the outcome.
func TestEndToEndTelegramDiscordCH2(t *testing.T) {
	e := newTestEnv(t)
	f := withModel(t, e)
	tg := withTelegram(t, e)
	dc := fakediscord.New(t)
	approvals := "555000111"
	e.writeConfig(t, "approvals:\n  channel: \"discord:"+approvals+"\"\n")
	e.vars["DISCORD_BOT_TOKEN"], e.vars["JARVIS_DISCORD_API_BASE"] = dc.Token(), dc.URL()
	e.vars["JARVIS_TELEGRAM_OWNERS"], e.vars["JARVIS_DISCORD_OWNERS"] = "42", "777"
	e.mustJarvis(t, "", "mcp", "add", "testbox", "--", mcpTestServer(t))
	out, stopServe := startServe(t, e)
	defer stopServe()
	waitOutput(t, out, "jarvisbot is ready")
	// testbox's tools were listed when it was added: it starts on first
	// use, when the turn is offered them, not with serve.
	f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("mcp:testbox/delete_everything"), Input: `{}`}}},
		fakellm.Step{Text: "Everything is deleted (in the test)."})
	tg.SendText(42, 42, "ask testbox to delete everything")
	var msgID, approve string
	waitFor(t, "the approval prompt on Discord", func() (bool, any) {
		for _, m := range dc.Sent() {
			if m.ChannelID == approvals && strings.Contains(m.Content, "Approval needed") && len(m.Rows) > 0 {
				msgID, approve = m.ID, m.Rows[0][0].CustomID
				return true, nil
			}
		}
		return false, fmt.Sprintf("discord %+v; telegram %+v; log:\n%s", dc.Sent(), tg.Sent(), out.String())
	})
	// The answer to a click comes after its decision: once the stranger
	// has theirs, the click has done all it will do.
	reply := func(who, interaction string) fakediscord.InteractionReply {
		t.Helper()
		var r fakediscord.InteractionReply
		waitFor(t, "the answer to "+who+"'s click", func() (bool, any) {
			rs := dc.InteractionReplies()
			for _, r = range rs {
				if r.InteractionID == interaction && r.Content != "" {
					return true, nil
				}
			}
			return false, rs
		})
		return r
	}
	stranger := dc.Click(approvals, "999", msgID, approve) // not an approver
	if r := reply("the stranger", stranger); !r.Ephemeral || !strings.Contains(r.Content, "Only the owner") {
		t.Fatalf("the stranger's click was answered %+v, want an ephemeral refusal", r)
	}
	if hasText(tg.Sent(), 42, "Everything is deleted") {
		t.Fatal("a stranger's click ran the tool")
	}
	owner := dc.Click(approvals, "777", msgID, approve)
	waitSent(t, tg, "the answer after the owner's click", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Everything is deleted (in the test).") })
	if r := reply("the owner", owner); r.Content != "Approved" {
		t.Errorf("the owner's click was answered %q, want Approved: the request was decided before it", r.Content)
	}
	reqs := f.Requests()
	if res := fmt.Sprint(reqs[len(reqs)-1].Messages); strings.Count(res, "deleted nothing (test)") != 1 {
		t.Errorf("the tool's result did not reach the model once: %s", res)
	}
	if !strings.Contains(out.String(), "starting an idle MCP server for a request") {
		t.Errorf("testbox was not started on first use; log:\n%s", out.String())
	}
	edited := false
	for _, m := range dc.Sent() {
		if m.ID == msgID && m.Edit && strings.Contains(m.Content, "Approved") && len(m.Rows) == 0 {
			edited = true
		}
	}
	if !edited {
		t.Errorf("the Discord approval message was not edited to the outcome: %+v", dc.Sent())
	}
}

// TestScheduledRunAskTierSC1: an ask-tier tool in a scheduled run asks
// the owner and waits; it is never approved by itself.
func TestScheduledRunAskTierSC1(t *testing.T) {
	e := newTestEnv(t)
	f := withModel(t, e)
	dir := filepath.Join(e.vars["JARVIS_DATA_DIR"], "skills", "nightly-echo")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: nightly-echo\ndescription: Echo a line every night.\nmetadata:\n  jarvisbot.schedule: \"0 2 * * *\"\n  jarvisbot.does: tools\n---\nRun echo with the word night.\n"), 0o600)
	e.jarvis(t, "", "cli", "add", "echo")
	f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("cli:echo"), Input: `{"args":["night"]}`}}}, fakellm.Step{Text: "Echoed night."})
	code, out, errOut := e.jarvis(t, "n\n", "schedule", "run", "nightly-echo")
	if code != 0 || !strings.Contains(out, "Approval needed: Run the program echo\nargs: \\[\"night\"\\]\nAsked by agent default · cli:echo\nApprove? It expires at ") || !strings.Contains(out, "Echoed night.") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	reqs := f.Requests()
	if !strings.Contains(fmt.Sprint(reqs[0].Messages), "Run echo with the word night.") {
		t.Errorf("the run did not get the skill as its instructions: %+v", reqs[0].Messages)
	}
	if !strings.Contains(fmt.Sprint(reqs[len(reqs)-1].Messages), "denied") {
		t.Errorf("the denied call was not reported to the model: %+v", reqs[len(reqs)-1].Messages)
	}
	if _, act, _ := e.jarvis(t, "", "activity", "--json"); !strings.Contains(act, `"outcome":"denied"`) {
		t.Errorf("activity: %s", act)
	}
}

// TestServeTelegramExpiryAnd5xxCH2: an unanswered approval expires as
// denied, the model is told and the message shows it; a Telegram API that
// answers 502 for a while costs retries, not the answer.
func TestServeTelegramExpiryAnd5xxCH2(t *testing.T) {
	e := newTestEnv(t)
	f := withModel(t, e)
	tg := withTelegram(t, e)
	e.writeConfig(t, "approvals:\n  ttl: 1s\n")
	e.vars["JARVIS_TELEGRAM_OWNERS"] = "42"
	e.jarvis(t, "", "cli", "add", "echo")
	out, stopServe := startServe(t, e)
	defer stopServe()
	waitOutput(t, out, "jarvisbot is ready")
	f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("cli:echo"), Input: `{"args":["late"]}`}}}, fakellm.Step{Text: "Nobody approved, so I did not run it."})
	tg.SendText(42, 42, "run echo")
	waitSent(t, tg, "the answer after the expiry", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Nobody approved") })
	reqs := f.Requests()
	if !strings.Contains(fmt.Sprint(reqs[len(reqs)-1].Messages), "did not answer the approval request in time") {
		t.Errorf("the model was not told of the expiry: %+v", reqs[len(reqs)-1].Messages)
	}
	// The prompt is edited when the engine tells the desk of the expiry,
	// which may come after the answer went out.
	waitSent(t, tg, "the approval message edited to Expired", func(s []faketelegram.Sent) bool {
		for _, m := range s {
			if m.Method != "sendMessage" && strings.Contains(m.Text, "Expired") && len(m.Buttons) == 0 {
				return true
			}
		}
		return false
	})
	// Telegram answers 502 twice; the answer still arrives.
	tg.FailNext("sendMessage", 2, http.StatusBadGateway)
	f.Push(fakellm.Step{Text: "Through the storm."})
	tg.SendText(42, 42, "are you there?")
	waitSent(t, tg, "the answer through the 502s", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Through the storm.") })
}

// TestServeRestartBeforeClickCH2: jarvisbot restarts between the
// approval request and the owner's tap; the old button still works, the
// tool runs and the answer arrives.
func TestServeRestartBeforeClickCH2(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	e.jarvis(t, "", "cli", "add", "echo")
	start := func() func() {
		out, stop := startServe(t, e)
		waitOutput(t, out, "jarvisbot is ready")
		return stop
	}
	stop := start()
	f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("cli:echo"), Input: `{"args":["survived"]}`}}})
	tg.SendText(42, 42, "run echo")
	var msgID int
	var approve string
	waitSent(t, tg, "the approval prompt", func(s []faketelegram.Sent) bool {
		for _, m := range s {
			if strings.Contains(m.Text, "Approval needed") && len(m.Buttons) > 0 {
				msgID, approve = m.MessageID, m.Buttons[0][0].Data
				return true
			}
		}
		return false
	})
	stop() // jarvisbot goes down while the request waits
	f.Push(fakellm.Step{Text: "It said: survived."})
	stop2 := start()
	defer stop2()
	tg.Press(42, 42, msgID, approve)
	waitSent(t, tg, "the answer after the restart", func(s []faketelegram.Sent) bool { return hasText(s, 42, "It said: survived.") })
	reqs := f.Requests()
	if !strings.Contains(fmt.Sprint(reqs[len(reqs)-1].Messages), "survived") {
		t.Errorf("the tool's output did not reach the model: %+v", reqs[len(reqs)-1].Messages)
	}
}

// TestServeDiscordGatewayDropCH1: the Discord gateway drops; jarvisbot
// reconnects and the owner is answered again.
func TestServeDiscordGatewayDropCH1(t *testing.T) {
	e := newTestEnv(t)
	f := withModel(t, e)
	dc := fakediscord.New(t)
	e.vars["DISCORD_BOT_TOKEN"], e.vars["JARVIS_DISCORD_API_BASE"] = dc.Token(), dc.URL()
	e.vars["JARVIS_DISCORD_OWNERS"] = "777"
	out, stopServe := startServe(t, e)
	defer stopServe()
	if !dc.WaitConnected(1, 10*time.Second) {
		t.Fatalf("no gateway session:\n%s", out.String())
	}
	dm := dc.DMChannel("777")
	answered := func(text string) {
		t.Helper()
		waitFor(t, fmt.Sprintf("%q on Discord", text), func() (bool, any) {
			sent := dc.Sent()
			return slices.ContainsFunc(sent, func(m fakediscord.Message) bool { return m.ChannelID == dm && strings.Contains(m.Content, text) }), sent
		})
	}
	f.Push(fakellm.Step{Text: "Before the drop."})
	dc.SendText(dm, "777", "hello")
	answered("Before the drop.")
	dc.DropConnections()
	if !dc.WaitConnected(1, 15*time.Second) {
		t.Fatal("jarvisbot did not reconnect")
	}
	f.Push(fakellm.Step{Text: "After the drop."})
	dc.SendText(dm, "777", "still there?")
	answered("After the drop.")
}

// withModel points the environment at a scripted model.
func withModel(t testing.TB, e *testEnv) *fakellm.Server {
	t.Helper()
	f := fakellm.New(t)
	e.vars["JARVIS_PROVIDER"], e.vars["JARVIS_MODEL"] = "anthropic", "test-model"
	e.vars["ANTHROPIC_API_KEY"], e.vars["ANTHROPIC_BASE_URL"] = "test-key", f.AnthropicURL()
	return f
}

// ownerOnTelegram is a test environment with a scripted model and a fake
// Telegram whose owner is user 42.
func ownerOnTelegram(t testing.TB) (*testEnv, *fakellm.Server, *faketelegram.Server) {
	t.Helper()
	e := newTestEnv(t)
	f := withModel(t, e)
	tg := withTelegram(t, e)
	e.vars["JARVIS_TELEGRAM_OWNERS"] = "42"
	return e, f, tg
}

// terminal is a command line run in-process with a pipe for its stdin, as
// the owner runs it at a terminal.
type terminal struct {
	in   *io.PipeWriter
	out  *syncBuffer // stdout and stderr
	done chan int    // the exit code, once the run ends
	stop context.CancelFunc
}

// startTerminal runs args in e (serve when there are none) on a terminal.
func startTerminal(e *testEnv, args ...string) *terminal {
	inR, inW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	c := &terminal{in: inW, out: &syncBuffer{}, done: make(chan int, 1), stop: cancel}
	go func() { c.done <- run(ctx, args, e.app(inR, c.out, c.out)) }()
	return c
}

// say types a line on the terminal.
func (c *terminal) say(s string) { _, _ = io.WriteString(c.in, s+"\n") }

// withTelegram points the environment at a fake Telegram Bot API.
func withTelegram(t testing.TB, e *testEnv) *faketelegram.Server {
	t.Helper()
	tg := faketelegram.New(t, "123:test-token")
	e.vars["TELEGRAM_BOT_TOKEN"], e.vars["JARVIS_TELEGRAM_API_ENDPOINT"] = "123:test-token", tg.URL+"/bot%s/%s"
	return tg
}

// startServe runs jarvisbot serve in the environment; stop ends it and
// waits for it. Stopping twice is stopping once.
func startServe(t *testing.T, e *testEnv) (*syncBuffer, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve"}, e.app(strings.NewReader(""), out, out))
	}()
	var once sync.Once
	return out, func() {
		once.Do(func() {
			cancel()
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				t.Error("serve did not stop")
			}
		})
	}
}

// TestServeAtHalfPastSevenSC1: a fresh install started at 07:30 does not
// catch up the shipped 07:00 morning brief (it was not known at 07:00), so
// the owner's first message is the model's first request. A day later,
// jarvisbot down from before 07:00 to 07:30, the brief that was missed is
// caught up once and posted to the owner.
func TestServeAtHalfPastSevenSC1(t *testing.T) {
	e := newTestEnv(t)
	e.clock = clock.NewFake(time.Date(2026, 12, 2, 7, 30, 0, 0, time.Local))
	f := withModel(t, e)
	tg := withTelegram(t, e)
	e.vars["JARVIS_TELEGRAM_OWNERS"] = "42"
	out, stop := startServe(t, e)
	waitOutput(t, out, "jarvisbot is ready")
	f.Push(fakellm.Step{Text: "Good to hear from you."})
	tg.SendText(42, 42, "hello")
	waitSent(t, tg, "the answer at 07:30", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Good to hear from you.") })
	stop()
	reqs := f.Requests()
	if len(reqs) != 1 || reqs[0].Messages[len(reqs[0].Messages)-1].Text != "hello" {
		t.Fatalf("the model got %d requests; the first was not the owner's message: %+v\n%s", len(reqs), reqs, out.String())
	}

	e.clock.Advance(24 * time.Hour) // the next day, 07:30: jarvisbot was down at 07:00
	f.Push(fakellm.Step{Text: "Your morning brief: nothing urgent."})
	out, stop = startServe(t, e)
	defer stop()
	waitSent(t, tg, "the caught-up morning brief", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Your morning brief: nothing urgent.") })
	stop() // a second catch-up, had there been one, came before serve stopped
	reqs = f.Requests()
	if len(reqs) != 2 || !strings.Contains(reqs[1].Messages[len(reqs[1].Messages)-1].Text, "morning-brief") {
		t.Errorf("the missed brief was not caught up once: %d requests\n%s", len(reqs), out.String())
	}
}

// TestServeRepeatedStartStopX4: serve starts and stops again and again,
// each time with an answer in progress and an approval pending: every stop
// lets the answer finish, nothing runs after the store is closed, and the
// pending request is neither lost nor drawn twice. Run under -race.
func TestServeRepeatedStartStopX4(t *testing.T) {
	e, f, tg := ownerOnTelegram(t)
	e.mustJarvis(t, "", "cli", "add", "echo")
	out, stop := startServe(t, e)
	waitOutput(t, out, "jarvisbot is ready")
	f.Push(fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("cli:echo"), Input: `{"args":["later"]}`}}})
	tg.SendText(42, 42, "run echo")
	waitSent(t, tg, "the approval prompt", func(s []faketelegram.Sent) bool { return hasText(s, 42, "Approval needed") })
	stop()
	for i := range 5 {
		out, stop := startServe(t, e)
		waitOutput(t, out, "jarvisbot is ready")
		answer := fmt.Sprintf("Answer %d.", i)
		release := make(chan struct{})
		f.Push(fakellm.Step{Text: answer, Release: release})
		n := len(f.Requests())
		tg.SendText(42, 42, fmt.Sprintf("question %d", i))
		waitFor(t, "the model call", func() (bool, any) { return len(f.Requests()) > n, len(f.Requests()) })
		stopped := make(chan struct{})
		go func() { stop(); close(stopped) }()
		waitOutput(t, out, "stopping: no new messages") // the answer is in progress as serve stops
		close(release)
		<-stopped
		if !hasText(tg.Sent(), 42, answer) {
			t.Fatalf("run %d: the answer in progress was not sent before the stop:\n%s", i, out.String())
		}
		if strings.Contains(out.String(), "database is closed") || strings.Contains(out.String(), "level=ERROR") {
			t.Fatalf("run %d:\n%s", i, out.String())
		}
	}
	prompts := 0
	for _, m := range tg.Sent() {
		if m.Method == "sendMessage" && strings.Contains(m.Text, "Approval needed") {
			prompts++
		}
	}
	if prompts != 1 {
		t.Errorf("the pending request was drawn %d times; want once", prompts)
	}
	if _, out, _ := e.jarvis(t, "", "approvals", "list"); !strings.Contains(out, "cli:echo") || !strings.Contains(out, "\n  Run the program echo\n  args: [\"later\"]\n") {
		t.Errorf("the pending request was lost: %s", out)
	}
	// The owner approves at last, five exchanges later: the call runs and
	// the model, told what came of it, tells the owner.
	out, stop = startServe(t, e)
	defer stop()
	waitOutput(t, out, "jarvisbot is ready")
	f.Push(fakellm.Step{Text: "The echo you approved said: later."})
	for _, m := range tg.Sent() {
		if strings.Contains(m.Text, "Approval needed") && len(m.Buttons) > 0 {
			tg.Press(42, 42, m.MessageID, m.Buttons[0][0].Data)
		}
	}
	waitSent(t, tg, "the answer after the late decision", func(s []faketelegram.Sent) bool { return hasText(s, 42, "The echo you approved said: later.") })
	reqs := f.Requests()
	if last := fmt.Sprint(reqs[len(reqs)-1].Messages); !strings.Contains(last, "later") || !strings.Contains(last, "decided on an earlier request") {
		t.Errorf("the model was not told what came of the late decision: %s", last)
	}
}
