package telegram

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/fakes/faketelegram"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
)

const testToken = "123456:AAH-secret_token-value"

func newBot(t *testing.T, opt Options) (*faketelegram.Server, *Bot) {
	t.Helper()
	s := faketelegram.New(t, testToken)
	opt.Token, opt.BaseURL = testToken, s.URL
	if opt.RetryDelay == 0 {
		opt.RetryDelay = 10 * time.Millisecond
	}
	b, err := New(t.Context(), opt)
	if err != nil {
		t.Fatal(err)
	}
	return s, b
}

// recorder is a handler that hands what it hears to the test.
type recorder struct {
	msgs    chan channels.Message
	presses chan channels.Press
}

func newRecorder() *recorder {
	return &recorder{msgs: make(chan channels.Message, 10), presses: make(chan channels.Press, 10)}
}

func (r *recorder) HandleMessage(_ context.Context, m channels.Message) { r.msgs <- m }
func (r *recorder) HandlePress(_ context.Context, p channels.Press)     { r.presses <- p }

// run starts b.Run and returns a stop that cancels it and waits for it.
func run(t *testing.T, b *Bot, h channels.Handler) (stop func() time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx, h) }()
	stopped := false
	stop = func() time.Duration {
		if stopped {
			return 0
		}
		stopped = true
		return testwait.Stop(t, "Run", cancel, done, 5*time.Second)
	}
	t.Cleanup(func() { stop() })
	return stop
}

func receive[T any](t *testing.T, ch chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(3 * time.Second):
		var zero T
		t.Fatal("nothing received")
		return zero
	}
}

func TestRunPassesMessagesAndPressesAndAnswers(t *testing.T) {
	t.Parallel()
	s, b := newBot(t, Options{})
	rec := newRecorder()
	stop := run(t, b, rec)

	msgID := s.SendText(42, 7, "hello **there**")
	m := receive(t, rec.msgs)
	want := channels.Message{Chat: "telegram:42", User: "telegram:7", Name: "User 7", Text: "hello **there**", ID: itoa(msgID), Delivery: itoa(s.LastUpdate())}
	if m != want {
		t.Errorf("message = %+v, want %+v", m, want)
	}

	id, err := b.Send(t.Context(), channels.Outgoing{Chat: m.Chat, Text: "Allow?", Buttons: [][]channels.Button{{{Label: "Yes", Data: "ap:1:y"}, {Label: "No", Data: "ap:1:n"}}}})
	if err != nil {
		t.Fatal(err)
	}
	qid := s.Press(42, 7, atoi(t, id), "ap:1:y")
	p := receive(t, rec.presses)
	if p.Chat != "telegram:42" || p.User != "telegram:7" || p.MessageID != id || p.Data != "ap:1:y" {
		t.Errorf("press = %+v", p)
	}
	if err := p.Answer(t.Context(), "Approved"); err != nil {
		t.Fatal(err)
	}
	if got := s.Answers(); len(got) != 1 || got[0].CallbackQueryID != qid || got[0].Text != "Approved" {
		t.Errorf("answers = %+v", got)
	}
	if err := p.Answer(t.Context(), "again"); err == nil {
		t.Error("a second answer to one press succeeded; Telegram refuses it")
	}

	stop()
	if n := s.Pending(); n != 0 {
		t.Errorf("%d updates left unconfirmed after Run returned: a restart would see them again", n)
	}
}

func TestRunStripsTheBotsNameFromCommands(t *testing.T) {
	t.Parallel()
	s, b := newBot(t, Options{})
	rec := newRecorder()
	run(t, b, rec)
	s.SendText(-100, 7, "/help@"+faketelegram.BotUsername+" skills")
	s.SendText(-100, 7, "/help@otherbot")
	if m := receive(t, rec.msgs); m.Text != "/help skills" || m.Chat != "telegram:-100" {
		t.Errorf("got %+v", m)
	}
	if m := receive(t, rec.msgs); m.Text != "/help@otherbot" {
		t.Errorf("got %q", m.Text)
	}
}

func TestReadyWhenTheFirstPollGoesOut(t *testing.T) {
	s, b := newBot(t, Options{})
	select {
	case <-b.Ready():
		t.Fatal("ready before Run")
	default:
	}
	stop := run(t, b, newRecorder())
	defer stop()
	select {
	case <-b.Ready():
	case <-time.After(5 * time.Second):
		t.Fatal("not ready within 5s of Run")
	}
	s.Wait(t, 5*time.Second, "a getUpdates after the bot said it is ready", func() bool { return s.Calls("getUpdates") > 0 })
}

func TestRunStopsWithinASecondOfCancel(t *testing.T) {
	t.Parallel()
	s, b := newBot(t, Options{}) // a 30 s poll: the cancel must abort it
	stop := run(t, b, newRecorder())
	s.Wait(t, 5*time.Second, "the long poll to wait in the server", func() bool { return s.Polling() == 1 })
	if took := stop(); took > time.Second {
		t.Errorf("Run took %s to stop", took)
	}
}

func TestRunSurvivesFailingPolls(t *testing.T) {
	t.Parallel()
	s, b := newBot(t, Options{})
	s.FailNext("getUpdates", 1, 502)
	rec := newRecorder()
	run(t, b, rec)
	s.SendText(1, 1, "still there?")
	if m := receive(t, rec.msgs); m.Text != "still there?" {
		t.Errorf("got %+v", m)
	}
	if n := s.Calls("getUpdates"); n < 2 {
		t.Errorf("getUpdates called %d times", n)
	}
}

// TestRunBacksOffOnTheClock: after failed polls Run waits 1 s, then 2 s,
// … on the injected clock, not the wall clock: it polls again exactly when
// the clock has moved by the wait, and a success starts the schedule over.
func TestRunBacksOffOnTheClock(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	s, b := newBot(t, Options{Clock: clk})
	s.FailNext("getUpdates", 2, 502)
	rec := newRecorder()
	run(t, b, rec)
	waiting := func(calls int) {
		t.Helper()
		testwait.For(t, 5*time.Second, fmt.Sprintf("a backoff wait after %d failed polls", calls), func() (bool, any) {
			n, p := s.Calls("getUpdates"), clk.Pending()
			return n == calls && p == 1, fmt.Sprintf("%d polls, %d timers", n, p)
		})
	}
	for i, wait := range []time.Duration{time.Second, 2 * time.Second} {
		waiting(i + 1)
		clk.Advance(wait - time.Millisecond) // runs whatever came due, before it returns
		if n, p := s.Calls("getUpdates"), clk.Pending(); n != i+1 || p != 1 {
			t.Fatalf("%s into a %s wait: %d polls, %d timers; want the wait still running", wait-time.Millisecond, wait, n, p)
		}
		clk.Advance(time.Millisecond)
	}
	s.SendText(1, 1, "still there?")
	if m := receive(t, rec.msgs); m.Text != "still there?" {
		t.Errorf("got %+v", m)
	}
	s.Wait(t, 5*time.Second, "the next poll to wait in the server", func() bool { return s.Polling() == 1 })
	s.FailNext("getUpdates", 1, 502)
	s.SendText(1, 1, "again") // the waiting poll answers it; the next one fails
	receive(t, rec.msgs)
	testwait.For(t, 5*time.Second, "a backoff wait after the success", func() (bool, any) { return clk.Pending() == 1, clk.Pending() })
	n := s.Calls("getUpdates")
	clk.Advance(time.Second) // 1 s again, not 4 s
	testwait.For(t, 5*time.Second, "a poll 1 s after the failure that followed a success", func() (bool, any) {
		return s.Calls("getUpdates") > n, s.Calls("getUpdates")
	})
}

func TestRunRefusesASecondPoller(t *testing.T) {
	t.Parallel()
	_, b := newBot(t, Options{})
	run(t, b, newRecorder())
	select {
	case <-b.Ready(): // the first Run is polling
	case <-time.After(5 * time.Second):
		t.Fatal("the first Run was not ready within 5s")
	}
	if err := b.Run(t.Context(), newRecorder()); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
		t.Errorf("second Run: %v", err)
	}
}

func TestSendConvertsMarkdownToHTML(t *testing.T) {
	t.Parallel()
	s, b := newBot(t, Options{})
	id, err := b.Send(t.Context(), channels.Outgoing{Chat: "telegram:5", Text: "**Done** — see `a<b>` & [docs](https://example.com)\n\n```go\nx := 1 << 2\n```"})
	if err != nil {
		t.Fatal(err)
	}
	got := s.Sent()
	want := "<b>Done</b> — see <code>a&lt;b&gt;</code> &amp; <a href=\"https://example.com\">docs</a>\n\n<pre><code class=\"language-go\">x := 1 &lt;&lt; 2</code></pre>"
	if len(got) != 1 || got[0].Text != want || got[0].ParseMode != "HTML" || got[0].ChatID != 5 || itoa(got[0].MessageID) != id {
		t.Errorf("sent %+v\nwant text %q", got, want)
	}
}

func TestSendSplitsALongAnswerAndPutsButtonsLast(t *testing.T) {
	t.Parallel()
	s, b := newBot(t, Options{})
	para := strings.Repeat("lorem ipsum ", 33) + "dolor." // 402 characters
	var md []string
	for range 10 {
		md = append(md, para)
	}
	code := "```python\n" + strings.Repeat("print('a < b')  # x\n", 150) + "```" // 3000 characters
	md = append(md, code)
	for range 12 {
		md = append(md, para)
	}
	text := strings.Join(md, "\n\n")
	if len(text) < 10_000 {
		t.Fatalf("the answer is %d characters", len(text))
	}
	buttons := [][]channels.Button{{{Label: "More", Data: "more"}}}
	id, err := b.Send(t.Context(), channels.Outgoing{Chat: "telegram:9", Text: text, Buttons: buttons})
	if err != nil {
		t.Fatal(err)
	}
	sent := s.Sent() // the fake refused any part over 4096 or with broken HTML
	if len(sent) < 3 {
		t.Fatalf("sent %d parts", len(sent))
	}
	blocks := 0
	for i, m := range sent {
		if opens := strings.Count(m.Text, "<pre>"); opens > 0 {
			blocks += opens
			if !strings.Contains(m.Text, strings.Repeat("print('a &lt; b')  # x\n", 149)+"print('a &lt; b')  # x</code></pre>") {
				t.Errorf("part %d does not hold the whole code block", i)
			}
		}
		if last := i == len(sent)-1; last != (m.Buttons != nil) {
			t.Errorf("part %d of %d has buttons %v", i+1, len(sent), m.Buttons)
		}
		if !strings.HasSuffix(m.Text, "dolor.") && !strings.HasSuffix(m.Text, "</pre>") {
			t.Errorf("part %d is not cut at a paragraph: …%q", i, m.Text[len(m.Text)-20:])
		}
	}
	if blocks != 1 {
		t.Errorf("the code block is in %d parts", blocks)
	}
	if last := sent[len(sent)-1]; itoa(last.MessageID) != id || last.Buttons[0][0] != (faketelegram.Button{Text: "More", Data: "more"}) {
		t.Errorf("Send returned %s; last part %+v", id, last)
	}
}

func TestSendSplitsAnOverlongCodeBlock(t *testing.T) {
	t.Parallel()
	s, b := newBot(t, Options{})
	code := strings.Repeat("fmt.Println(\"hello, world\") // 40 chars\n", 250) // 10,000 characters
	if _, err := b.Send(t.Context(), channels.Outgoing{Chat: "telegram:9", Text: "```go\n" + code + "```"}); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for i, m := range s.Sent() {
		if !strings.HasPrefix(m.Text, `<pre><code class="language-go">`) || !strings.HasSuffix(m.Text, "</code></pre>") {
			t.Errorf("part %d is not a closed block", i)
		}
		got.WriteString(visibleText(m.Text) + "\n")
	}
	if n := len(s.Sent()); n != 3 {
		t.Errorf("%d parts, want 3", n)
	}
	if got.String() != code {
		t.Error("the code did not survive the split line for line")
	}
}

func TestEditReplacesTextAndRemovesButtons(t *testing.T) {
	t.Parallel()
	s, b := newBot(t, Options{})
	ctx := t.Context()
	id, err := b.Send(ctx, channels.Outgoing{Chat: "telegram:3", Text: "Allow *rm*?", Buttons: [][]channels.Button{{{Label: "Yes", Data: "y"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Edit(ctx, "telegram:3", id, "Approved: **rm**", nil); err != nil {
		t.Fatal(err)
	}
	m, _ := s.Message(3, atoi(t, id))
	if m.Text != "Approved: <b>rm</b>" || m.Buttons != nil {
		t.Errorf("after edit: %+v", m)
	}
	if err := b.Edit(ctx, "telegram:3", id, "Approved: **rm**", nil); err != nil {
		t.Errorf("editing to the same content: %v", err)
	}
	if err := b.Edit(ctx, "telegram:3", id, "Again?", [][]channels.Button{{{Label: "Retry", Data: "r"}}}); err != nil {
		t.Fatal(err)
	}
	if m, _ := s.Message(3, atoi(t, id)); len(m.Buttons) != 1 || m.Buttons[0][0].Data != "r" {
		t.Errorf("buttons after edit: %+v", m.Buttons)
	}
	if err := b.Edit(ctx, "telegram:3", "999", "x", nil); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("editing a missing message: %v", err)
	}
}

func TestSendRetriesAfter429(t *testing.T) {
	t.Parallel()
	s, b := newBot(t, Options{})
	s.FailNext("sendMessage", 1, 429) // retry_after: 1
	start := time.Now()
	if _, err := b.Send(t.Context(), channels.Outgoing{Chat: "telegram:1", Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < time.Second {
		t.Errorf("retried after %s; Telegram said 1s", took)
	}
	if n, sent := s.Calls("sendMessage"), len(s.Sent()); n != 2 || sent != 1 {
		t.Errorf("%d calls, %d sent; want 2 and 1", n, sent)
	}
}

func TestSendGivesUpOnPersistent500(t *testing.T) {
	t.Parallel()
	s, b := newBot(t, Options{})
	s.FailNext("sendMessage", 10, 500)
	_, err := b.Send(t.Context(), channels.Outgoing{Chat: "telegram:1", Text: "hi"})
	if jarvisbot.ErrorCode(err) != jarvisbot.EUNAVAILABLE || !strings.Contains(err.Error(), "500") {
		t.Errorf("err = %v", err)
	}
	if n := s.Calls("sendMessage"); n != 4 {
		t.Errorf("%d calls, want 1 + 3 retries", n)
	}
}

func TestSendRefusesCallbackDataOver64Bytes(t *testing.T) {
	t.Parallel()
	s, b := newBot(t, Options{})
	for _, data := range []string{strings.Repeat("x", 65), "", strings.Repeat("é", 33)} {
		_, err := b.Send(t.Context(), channels.Outgoing{Chat: "telegram:1", Text: "hi", Buttons: [][]channels.Button{{{Label: "B", Data: data}}}})
		if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
			t.Errorf("data of %d bytes: err = %v", len(data), err)
		}
	}
	if _, err := b.Send(t.Context(), channels.Outgoing{Chat: "telegram:1", Text: "hi", Buttons: [][]channels.Button{{{Label: "B", Data: strings.Repeat("x", 64)}}}}); err != nil {
		t.Errorf("64 bytes: %v", err)
	}
	if n := s.Calls("sendMessage"); n != 1 {
		t.Errorf("%d calls reached Telegram, want 1", n)
	}
}

func TestSendRefusesWhatIsNotATelegramChat(t *testing.T) {
	t.Parallel()
	_, b := newBot(t, Options{})
	for _, chat := range []string{"discord:1", "telegram:x", "telegram:"} {
		if _, err := b.Send(t.Context(), channels.Outgoing{Chat: chat, Text: "hi"}); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
			t.Errorf("%q: %v", chat, err)
		}
	}
	if _, err := b.Send(t.Context(), channels.Outgoing{Chat: "telegram:1", Text: " \n"}); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("empty text: %v", err)
	}
}

func TestTypingAndCommands(t *testing.T) {
	t.Parallel()
	s, b := newBot(t, Options{})
	if err := b.Typing(t.Context(), "telegram:8"); err != nil {
		t.Fatal(err)
	}
	if got := s.Actions(); len(got) != 1 || got[0] != (faketelegram.Action{ChatID: 8, Action: "typing"}) {
		t.Errorf("actions = %+v", got)
	}
	cmds := []channels.Command{{Name: "help", Description: "What I can do"}, {Name: "/Skills", Description: "List skills"}}
	if err := b.SetCommands(t.Context(), cmds); err != nil {
		t.Fatal(err)
	}
	want := []faketelegram.Command{{Command: "help", Description: "What I can do"}, {Command: "skills", Description: "List skills"}}
	if got := s.Commands(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("commands = %+v", got)
	}
	if err := b.SetCommands(t.Context(), []channels.Command{{Name: "no-dash", Description: "x"}}); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("bad name: %v", err)
	}
}

func TestNewRefusesABadTokenWithoutSayingIt(t *testing.T) {
	t.Parallel()
	s := faketelegram.New(t, testToken)
	down := httptest.NewServer(nil)
	down.Close()
	for _, tc := range []struct {
		name, token, base string
		code              jarvisbot.Code
	}{
		{"wrong token", "654321:BBH-other_secret", s.URL, jarvisbot.EINVALID},
		{"malformed token", "not-a-token-secret", s.URL, jarvisbot.EINVALID},
		{"server down", testToken, down.URL, jarvisbot.EUNAVAILABLE},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(t.Context(), Options{Token: tc.token, BaseURL: tc.base})
			if err == nil {
				t.Fatal("no error")
			}
			secret := tc.token[strings.Index(tc.token, "-"):]
			for e := error(err); e != nil; e = errors.Unwrap(e) {
				if strings.Contains(e.Error(), secret) {
					t.Errorf("the error shows the token: %v", e)
				}
			}
			if jarvisbot.ErrorCode(err) != tc.code {
				t.Errorf("code %s, want %s: %v", jarvisbot.ErrorCode(err), tc.code, err)
			}
			t.Log(err)
		})
	}
}

func TestNewTakesTheConfigsEndpointFormat(t *testing.T) {
	t.Parallel()
	s := faketelegram.New(t, testToken)
	b, err := New(t.Context(), Options{Token: testToken, BaseURL: s.URL + "/bot%s/%s"})
	if err != nil {
		t.Fatal(err)
	}
	if b.Username() != faketelegram.BotUsername || b.Name() != "telegram" {
		t.Errorf("username %q, name %q", b.Username(), b.Name())
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestRefusedHTMLFallsBackToPlainText(t *testing.T) {
	t.Parallel()
	s, b := newBot(t, Options{})
	cfg := tgbotapi.NewMessage(1, "<b>unclosed &amp; odd")
	cfg.ParseMode = tgbotapi.ModeHTML
	if _, err := b.sendMessage(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	if got := s.Sent(); len(got) != 1 || got[0].Text != "unclosed & odd" || got[0].ParseMode != "" {
		t.Errorf("sent %+v", got)
	}
}
