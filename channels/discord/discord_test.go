package discord

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakediscord"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
)

// recorder is a handler that keeps what it hears; onPress, when set,
// runs for each press.
type recorder struct {
	mu      sync.Mutex
	msgs    []channels.Message
	presses []channels.Press
	onPress func(channels.Press)
}

func (r *recorder) HandleMessage(_ context.Context, m channels.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, m)
}

func (r *recorder) HandlePress(_ context.Context, p channels.Press) {
	r.mu.Lock()
	r.presses = append(r.presses, p)
	f := r.onPress
	r.mu.Unlock()
	if f != nil {
		f(p)
	}
}

func (r *recorder) messages() []channels.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]channels.Message(nil), r.msgs...)
}

func (r *recorder) pressed() []channels.Press {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]channels.Press(nil), r.presses...)
}

// eventually polls cond until it holds; after 5 s it fails the test,
// naming what it waited for and what cond last saw.
func eventually(t *testing.T, what string, cond func() (ok bool, saw any)) {
	t.Helper()
	testwait.For(t, 5*time.Second, what, cond)
}

func newBot(t *testing.T, srv *fakediscord.Server) *Bot {
	t.Helper()
	b, err := New(t.Context(), Options{
		Token:      srv.Token(),
		HTTPClient: srv.HTTPClient(),
		Logger:     slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return b
}

// runBot starts b.Run with h; stop ends it and checks that it returned
// within the time given (testwait.Stop, naming it what), returning how
// long that took.
func runBot(t *testing.T, b *Bot, h channels.Handler, what string) (stop func(within time.Duration) time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx, h) }()
	return func(within time.Duration) time.Duration { return testwait.Stop(t, what, cancel, done, within) }
}

// running starts a bot on a fake Discord and stops it when the test ends.
func running(t *testing.T, h channels.Handler) (*fakediscord.Server, *Bot) {
	t.Helper()
	srv := fakediscord.New(t)
	b := newBot(t, srv)
	stop := runBot(t, b, h, "Run")
	t.Cleanup(func() { stop(10 * time.Second) })
	if !srv.WaitConnected(1, 5*time.Second) {
		t.Fatal("the bot did not connect to the gateway")
	}
	return srv, b
}

const (
	guildChan = "200"
	owner     = "300"
)

func TestRunReceivesMessagesButNotItsOwn(t *testing.T) {
	t.Parallel()
	h := &recorder{}
	srv, _ := running(t, h)
	dm := srv.DMChannel(owner)

	srv.SendText(guildChan, owner, "hello") // a guild message that does not address the bot
	srv.SendText(guildChan, srv.BotID(), "my own words")
	srv.SendText(guildChan, owner, "<@"+srv.BotID()+"> with a mention")
	srv.SendText(dm, owner, "in private")
	// The gateway delivers in order: once the last message is heard, any
	// of the earlier ones the bot took would be there too.
	eventually(t, "the last message sent", func() (bool, any) {
		ms := h.messages()
		return slices.ContainsFunc(ms, func(m channels.Message) bool { return m.Text == "in private" }), ms
	})

	want := []channels.Message{
		{Chat: "discord:" + guildChan, User: "discord:" + owner, Name: fakediscord.DisplayName(owner), Text: "with a mention"},
		{Chat: "discord:" + dm, User: "discord:" + owner, Name: fakediscord.DisplayName(owner), Text: "in private"},
	}
	got := h.messages()
	if len(got) != len(want) {
		t.Fatalf("got %d messages, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i].ID == "" {
			t.Errorf("message %d has no id", i)
		}
		got[i].ID = ""
		if got[i] != want[i] {
			t.Errorf("message %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	wantIntents := fakediscord.IntentGuildMessages | fakediscord.IntentDirectMessages | fakediscord.IntentMessageContent
	if ids := srv.Identifies(); len(ids) != 1 || ids[0] != wantIntents {
		t.Errorf("IDENTIFY intents = %v, want [%d]", ids, wantIntents)
	}
	eventually(t, "a heartbeat", func() (bool, any) { n := srv.Heartbeats(); return n > 0, n })
}

func TestPressAnswerIsEphemeral(t *testing.T) {
	t.Parallel()
	h := &recorder{}
	h.onPress = func(p channels.Press) {
		if err := p.Answer(context.Background(), "Approved."); err != nil {
			t.Errorf("Answer: %v", err)
		}
	}
	srv, b := running(t, h)
	id, err := b.Send(t.Context(), channels.Outgoing{Chat: "discord:" + guildChan, Text: "Run `rm`?",
		Buttons: [][]channels.Button{{{Label: "Yes", Data: "ap:1:y"}, {Label: "No", Data: "ap:1:n"}}}})
	if err != nil {
		t.Fatal(err)
	}
	iid := srv.Click(guildChan, owner, id, "ap:1:y")
	eventually(t, "the answer", func() (bool, any) { rs := srv.InteractionReplies(); return len(rs) == 1, rs })

	p := h.pressed()[0]
	if p.Chat != "discord:"+guildChan || p.User != "discord:"+owner || p.MessageID != id || p.Data != "ap:1:y" {
		t.Errorf("press = %+v, want ap:1:y on %s from the owner in %s", p, id, guildChan)
	}
	r := srv.InteractionReplies()[0]
	if r.InteractionID != iid || r.Type != 4 || !r.Ephemeral || r.Content != "Approved." {
		t.Errorf("reply = %+v, want an ephemeral type-4 reply \"Approved.\" to %s", r, iid)
	}
}

func TestLatePressIsAcknowledgedThenFollowedUp(t *testing.T) {
	t.Parallel()
	answered := make(chan error, 1)
	h := &recorder{}
	srv, b := running(t, h)
	b.mu.Lock()
	b.ackAfter = 50 * time.Millisecond
	b.mu.Unlock()
	// The handler answers only once Discord has the automatic
	// acknowledgement, whatever the machine's speed.
	acked := make(chan struct{})
	var release sync.Once
	t.Cleanup(func() { release.Do(func() { close(acked) }) }) // a failed wait must not strand the handler
	h.mu.Lock()
	h.onPress = func(p channels.Press) {
		<-acked
		answered <- p.Answer(context.Background(), "Done, finally.")
	}
	h.mu.Unlock()
	id, err := b.Send(t.Context(), channels.Outgoing{Chat: "discord:" + guildChan, Text: "Go?", Buttons: [][]channels.Button{{{Label: "Go", Data: "go"}}}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Click(guildChan, owner, id, "go")
	eventually(t, "the automatic acknowledgement", func() (bool, any) { rs := srv.InteractionReplies(); return len(rs) == 1, rs })
	release.Do(func() { close(acked) })
	if err := <-answered; err != nil {
		t.Fatalf("Answer: %v", err)
	}
	rs := srv.InteractionReplies()
	if len(rs) != 2 || rs[0].Type != 6 || rs[1].Type != 0 || !rs[1].Ephemeral || rs[1].Content != "Done, finally." {
		t.Errorf("replies = %+v, want a deferred update, then an ephemeral follow-up", rs)
	}
}

func TestSendSplitsLongTextButtonsOnLastPart(t *testing.T) {
	t.Parallel()
	srv, b := running(t, &recorder{})
	var code strings.Builder
	for i := range 150 {
		code.WriteString("fmt.Println(\"line number " + strings.Repeat("x", i%7) + "\")\n")
	}
	text := strings.Repeat("An opening paragraph that says little. ", 30) + "\n\n" +
		"```go\n" + code.String() + "```\n\n" + "The end."
	id, err := b.Send(t.Context(), channels.Outgoing{Chat: "discord:" + guildChan, Text: text,
		Buttons: [][]channels.Button{{{Label: "OK", Data: "ok"}}}})
	if err != nil {
		t.Fatal(err)
	}
	sent := srv.Sent()
	if len(sent) < 3 {
		t.Fatalf("sent %d parts, want at least 3", len(sent))
	}
	var body strings.Builder
	for i, m := range sent {
		if n := size(m.Content); n > maxContent {
			t.Errorf("part %d has %d characters", i, n)
		}
		if fences := strings.Count(m.Content, "```"); fences%2 != 0 {
			t.Errorf("part %d leaves a code block open:\n%s", i, m.Content)
		}
		if last := i == len(sent)-1; last != (len(m.Rows) > 0) {
			t.Errorf("part %d: buttons %v (last part: %v)", i, m.Rows, last)
		}
		for _, line := range strings.Split(m.Content, "\n") {
			if strings.HasPrefix(line, "fmt.") {
				body.WriteString(line + "\n")
			}
		}
	}
	if body.String() != code.String() {
		t.Error("the code lines were not all delivered, in order, whole")
	}
	if !strings.HasPrefix(sent[1].Content, "```go\n") {
		t.Errorf("a continued code block lost its language: %.20q", sent[1].Content)
	}
	if id != sent[len(sent)-1].ID {
		t.Errorf("Send returned %s, want the last part's id %s", id, sent[len(sent)-1].ID)
	}
}

func TestEditReplacesTextAndRemovesButtons(t *testing.T) {
	t.Parallel()
	srv, b := running(t, &recorder{})
	chat := "discord:" + guildChan
	id, err := b.Send(t.Context(), channels.Outgoing{Chat: chat, Text: "Allow?", Buttons: [][]channels.Button{{{Label: "Yes", Data: "y"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Edit(t.Context(), chat, id, "Allowed by you.", nil); err != nil {
		t.Fatal(err)
	}
	sent := srv.Sent()
	last := sent[len(sent)-1]
	if !last.Edit || last.ID != id || last.Content != "Allowed by you." || len(last.Rows) != 0 {
		t.Errorf("after Edit: %+v, want message %s edited, without buttons", last, id)
	}
	if err := b.Edit(t.Context(), chat, "999", "x", nil); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("editing an unknown message: %v, want not found", err)
	}
}

func TestRateLimitedSendSucceedsAfterWaiting(t *testing.T) {
	t.Parallel()
	srv := fakediscord.New(t)
	b := newBot(t, srv)
	srv.FailNext(fakediscord.RouteCreateMessage, 1, 429)
	if _, err := b.Send(t.Context(), channels.Outgoing{Chat: "discord:" + guildChan, Text: "hi"}); err != nil {
		t.Fatalf("Send after a 429: %v", err)
	}
	if n := srv.Requests(fakediscord.RouteCreateMessage); n != 2 {
		t.Errorf("%d requests, want 2 (the 429, then the retry)", n)
	}
	if len(srv.Sent()) != 1 {
		t.Errorf("sent %d messages, want 1", len(srv.Sent()))
	}
}

func TestServerErrorsFailTheSend(t *testing.T) {
	t.Parallel()
	srv := fakediscord.New(t)
	b := newBot(t, srv)
	srv.FailNext(fakediscord.RouteCreateMessage, 10, 500)
	_, err := b.Send(t.Context(), channels.Outgoing{Chat: "discord:" + guildChan, Text: "hi"})
	if jarvisbot.ErrorCode(err) != jarvisbot.EUNAVAILABLE || !strings.Contains(err.Error(), "HTTP 500") {
		t.Fatalf("Send on a failing Discord: %v, want unavailable with HTTP 500", err)
	}
	if len(srv.Sent()) != 0 {
		t.Errorf("sent %v", srv.Sent())
	}
}

func TestBadTokenIsExplainedWithoutTheToken(t *testing.T) {
	t.Parallel()
	srv := fakediscord.New(t)
	const secret = "MTIzNDU2Nzg5.not-the-right-one.s3cr3t"
	_, err := New(t.Context(), Options{Token: secret, HTTPClient: srv.HTTPClient()})
	if err == nil {
		t.Fatal("New accepted a wrong token")
	}
	if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "token") || !strings.Contains(err.Error(), "401") {
		t.Errorf("error = %q (%s), want an invalid-token sentence", err, jarvisbot.ErrorCode(err))
	}
	if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("the error repeats the token: %q", err)
	}
	if _, err := New(t.Context(), Options{Token: " ", HTTPClient: srv.HTTPClient()}); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("empty token: %v, want invalid", err)
	}
}

func TestReadyOnceTheGatewaySessionIs(t *testing.T) {
	t.Parallel()
	srv := fakediscord.New(t)
	b := newBot(t, srv)
	select {
	case <-b.Ready():
		t.Fatal("ready before Run")
	default:
	}
	stop := runBot(t, b, &recorder{}, "Run")
	select {
	case <-b.Ready():
	case <-time.After(5 * time.Second):
		t.Fatal("not ready within 5s of Run")
	}
	// READY has gone out on the one connection: the bot is not ready on
	// HELLO or on its IDENTIFY alone.
	if n := srv.ReadySent(); n != 1 {
		t.Errorf("ready with %d gateway connections sent READY, want 1", n)
	}
	stop(10 * time.Second)
}

func TestRunReturnsSoonAfterCancel(t *testing.T) {
	t.Parallel()
	srv := fakediscord.New(t)
	b := newBot(t, srv)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	h := &recorder{}
	go func() { done <- b.Run(ctx, h) }()
	srv.SendText(guildChan, owner, "<@"+srv.BotID()+"> are you there?")
	eventually(t, "the bot to hear a message", func() (bool, any) { ms := h.messages(); return len(ms) == 1, ms })
	if err := b.Run(ctx, &recorder{}); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
		t.Errorf("a second Run: %v, want conflict", err)
	}
	took := testwait.Stop(t, "Run", cancel, done, 5*time.Second)
	t.Logf("Run returned %v after cancel", took.Round(time.Millisecond))
	eventually(t, "the gateway connection to close", func() (bool, any) { n := srv.Connected(); return n == 0, fmt.Sprintf("%d ready sessions", n) })
	if codes := srv.CloseCodes(); len(codes) != 1 || codes[0] != 1000 {
		t.Errorf("close codes %v, want [1000]: a clean close shows the bot offline at once", codes)
	}
}

func TestRunReturnsOnCancelWhileTheGatewayHangs(t *testing.T) {
	t.Parallel()
	srv := fakediscord.New(t)
	b := newBot(t, srv)
	srv.SilentGateway()
	stop := runBot(t, b, &recorder{}, "Run on a silent gateway")
	eventually(t, "the bot to dial the gateway", func() (bool, any) { n := srv.Connections(); return n == 1, fmt.Sprintf("%d connections", n) })
	stop(3 * time.Second)
}

func TestRunFailsWhenTheGatewayCannotBeFound(t *testing.T) {
	t.Parallel()
	srv := fakediscord.New(t)
	b := newBot(t, srv)
	srv.FailNext(fakediscord.RouteGateway, 1, 500)
	err := b.Run(t.Context(), &recorder{})
	if jarvisbot.ErrorCode(err) != jarvisbot.EUNAVAILABLE {
		t.Fatalf("Run: %v, want unavailable", err)
	}
}

func TestRunReconnectsAndResumes(t *testing.T) {
	t.Parallel()
	h := &recorder{}
	srv, _ := running(t, h)
	srv.DropConnections()
	if !srv.WaitConnected(1, 8*time.Second) {
		t.Fatal("the bot did not reconnect")
	}
	srv.SendText(guildChan, owner, "<@"+srv.BotID()+"> still there?")
	eventually(t, "the message after reconnecting", func() (bool, any) { ms := h.messages(); return len(ms) == 1, ms })
	if n := len(srv.Identifies()); n != 1 {
		t.Errorf("%d IDENTIFYs, want 1: the bot should resume its session", n)
	}
}

// TestReconnectWaitsOnTheClock: after a drop the bot reopens the gateway
// when the injected clock has moved by the first wait (500 ms), not
// before, and without sleeping in real time.
func TestReconnectWaitsOnTheClock(t *testing.T) {
	t.Parallel()
	srv := fakediscord.New(t)
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	b, err := New(t.Context(), Options{Token: srv.Token(), HTTPClient: srv.HTTPClient(), Clock: clk,
		Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	defer runBot(t, b, &recorder{}, "Run")(10 * time.Second)
	if !srv.WaitConnected(1, 5*time.Second) {
		t.Fatal("the bot did not connect to the gateway")
	}
	srv.DropConnections()
	testwait.For(t, 5*time.Second, "the wait before reconnecting", func() (bool, any) {
		return clk.Pending() == 1, fmt.Sprintf("%d timers", clk.Pending())
	})
	clk.Advance(499 * time.Millisecond) // runs whatever came due, before it returns
	if p, c := clk.Pending(), srv.Connected(); p != 1 || c != 0 {
		t.Fatalf("499ms into the 500ms wait: %d timers, %d sessions; want the wait still running", p, c)
	}
	clk.Advance(time.Millisecond)
	// The dropped connection may still be closing when the wait ends
	// (discordgo's heartbeat goroutine closes it a second later): then the
	// bot waits for that close and tries again after its next wait, which
	// the clock is moved through here.
	testwait.For(t, 15*time.Second, "the bot to reconnect once the clock reached the wait", func() (bool, any) {
		if srv.Connected() >= 1 {
			return true, nil
		}
		if clk.Pending() > 0 {
			clk.Advance(2 * time.Minute)
		}
		return false, fmt.Sprintf("%d sessions, %d timers", srv.Connected(), clk.Pending())
	})
}

func TestSetCommandsAndSlashCommands(t *testing.T) {
	t.Parallel()
	h := &recorder{}
	srv, b := running(t, h)
	err := b.SetCommands(t.Context(), []channels.Command{{Name: "help", Description: "What I can do"}, {Name: "pair", Description: "Become my owner"}})
	if err != nil {
		t.Fatal(err)
	}
	cmds := srv.Commands()
	if len(cmds) != 2 || cmds[0].Name != "help" || cmds[0].Description != "What I can do" || cmds[1].Name != "pair" {
		t.Fatalf("commands = %+v", cmds)
	}
	srv.SlashCommand(guildChan, owner, "pair", "123456")
	eventually(t, "the command as a message", func() (bool, any) { ms := h.messages(); return len(ms) == 1, ms })
	if m := h.messages()[0]; m.Text != "/pair 123456" || m.User != "discord:"+owner || m.Chat != "discord:"+guildChan {
		t.Errorf("message = %+v, want /pair 123456 from the owner", m)
	}
	if rs := srv.InteractionReplies(); len(rs) != 1 || rs[0].Type != 4 || !rs[0].Ephemeral {
		t.Errorf("replies = %+v, want one ephemeral reply", rs)
	}
	if err := b.SetCommands(t.Context(), []channels.Command{{Name: "Not Valid"}}); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("bad name: %v, want invalid", err)
	}
}

func TestTyping(t *testing.T) {
	t.Parallel()
	srv := fakediscord.New(t)
	b := newBot(t, srv)
	if err := b.Typing(t.Context(), "discord:"+guildChan); err != nil {
		t.Fatal(err)
	}
	if got := srv.Typing(); len(got) != 1 || got[0] != guildChan {
		t.Errorf("typing in %v, want [%s]", got, guildChan)
	}
}

func TestSendRefusesWhatDiscordWould(t *testing.T) {
	t.Parallel()
	srv := fakediscord.New(t)
	b := newBot(t, srv)
	six := make([]channels.Button, 6)
	for i := range six {
		six[i] = channels.Button{Label: "b", Data: string(rune('a' + i))}
	}
	for name, m := range map[string]channels.Outgoing{
		"long data":      {Chat: "discord:1", Text: "x", Buttons: [][]channels.Button{{{Label: "b", Data: strings.Repeat("d", 101)}}}},
		"six in a row":   {Chat: "discord:1", Text: "x", Buttons: [][]channels.Button{six}},
		"same data":      {Chat: "discord:1", Text: "x", Buttons: [][]channels.Button{{{Label: "a", Data: "d"}, {Label: "b", Data: "d"}}}},
		"telegram chat":  {Chat: "telegram:1", Text: "x"},
		"nothing at all": {Chat: "discord:1", Text: " \n"},
	} {
		if _, err := b.Send(t.Context(), m); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
			t.Errorf("%s: %v, want invalid", name, err)
		}
	}
	if len(srv.Sent()) != 0 {
		t.Errorf("sent %v", srv.Sent())
	}
	// 100 bytes is Discord's limit, and fine.
	if _, err := b.Send(t.Context(), channels.Outgoing{Chat: "discord:1", Text: "x", Buttons: [][]channels.Button{{{Label: "b", Data: strings.Repeat("d", 100)}}}}); err != nil {
		t.Errorf("100-byte data: %v", err)
	}
}
