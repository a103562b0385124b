package console

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
)

// recorder is a channels.Handler that hands on what it hears.
type recorder struct {
	msgs    chan channels.Message
	presses chan channels.Press
	gate    chan struct{} // HandleMessage returns once it is closed
}

func (r recorder) HandleMessage(_ context.Context, m channels.Message) { r.msgs <- m; <-r.gate }
func (r recorder) HandlePress(_ context.Context, p channels.Press)     { r.presses <- p }

// TestTypedAheadNeverAnswersCH2: a number typed before the approval's
// buttons appeared (typed ahead, or pasted with the message) does not
// press one; the same number typed after them does.
func TestTypedAheadNeverAnswersCH2(t *testing.T) {
	inR, inW := io.Pipe()
	out := &testwait.Buffer{}
	c := New(inR, out, Options{})
	h := recorder{msgs: make(chan channels.Message, 4), presses: make(chan channels.Press, 4), gate: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, h) }()

	io.WriteString(inW, "delete my files\n1\n") // pasted: the message and an answer
	if m := <-h.msgs; m.Text != "delete my files" {
		t.Fatalf("message %q", m.Text)
	}
	// The question comes while "1" is read already (the console is
	// still handing on the message).
	if _, err := c.Send(ctx, channels.Outgoing{Chat: Chat, Text: "Approval needed", Buttons: [][]channels.Button{{{Label: "Approve", Data: "ap:x:y"}, {Label: "Deny", Data: "ap:x:n"}}}}); err != nil {
		t.Fatal(err)
	}
	close(h.gate)
	testwait.For(t, 10*time.Second, "the typed-ahead line to be named", func() (bool, any) {
		got := out.String()
		return strings.Contains(got, "came before the question"), "output:\n" + got
	})
	io.WriteString(inW, "2\n") // typed after the question
	select {
	case p := <-h.presses:
		if p.Data != "ap:x:n" {
			t.Errorf("pressed %q; want the button typed after the question (Deny)", p.Data)
		}
	case m := <-h.msgs:
		t.Fatalf("the answer became a message: %q", m.Text)
	case <-time.After(10 * time.Second):
		t.Fatalf("no press; output:\n%s", out.String())
	}
	if len(h.presses) != 0 {
		t.Errorf("a second press: %+v", <-h.presses)
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"1" came before the question`) {
		t.Errorf("the typed-ahead line was not named:\n%s", out.String())
	}
}

// approval is a question as the desk draws an approval request.
var approval = channels.Outgoing{Chat: Chat, Text: "Approval needed (cli:echo, agent default): run echo\nApprove?", Buttons: [][]channels.Button{
	{{Label: "Approve", Data: "ap:x:y", Keys: []string{"y", "yes"}}, {Label: "Deny", Data: "ap:x:n", Keys: []string{"n", "no"}}},
	{{Label: "Always for this tool", Data: "ap:x:a", Keys: []string{"a", "always"}}},
}}

// answerer is a handler that answers every press with its outcome, as the
// desk does.
type answerer struct{ recorder }

func (a answerer) HandlePress(ctx context.Context, p channels.Press) {
	outcome := map[string]string{"ap:x:y": "Approved", "ap:x:n": "Denied", "ap:x:a": "Approved, always for this tool"}[p.Data]
	p.Answer(ctx, outcome)
	a.presses <- p
}

func newRecorder() recorder {
	gate := make(chan struct{})
	close(gate)
	return recorder{msgs: make(chan channels.Message, 8), presses: make(chan channels.Press, 8), gate: gate}
}

// TestConsoleAnswersByKeyCH2: a question's buttons are numbered and show
// their keys; typing a key (any case) or a word for it presses the button,
// like its number does; the newest open question is the one answered, and
// once it is closed the one before it is.
func TestConsoleAnswersByKeyCH2(t *testing.T) {
	inR, inW := io.Pipe()
	out := &testwait.Buffer{}
	c := New(inR, out, Options{})
	h := newRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go c.Run(ctx, h)
	first, _ := c.Send(ctx, approval)
	second, _ := c.Send(ctx, approval)
	if !strings.Contains(out.String(), "[1] Approve (y)  [2] Deny (n)  [3] Always for this tool (a)") {
		t.Fatalf("buttons shown as:\n%s", out.String())
	}
	for _, tc := range []struct{ typed, data, msgID string }{{"YES", "ap:x:y", second}, {"a", "ap:x:a", first}} {
		io.WriteString(inW, tc.typed+"\n")
		select {
		case p := <-h.presses:
			if p.Data != tc.data || p.MessageID != tc.msgID {
				t.Errorf("%q pressed %q on message %s, want %q on %s", tc.typed, p.Data, p.MessageID, tc.data, tc.msgID)
			}
		case m := <-h.msgs:
			t.Fatalf("%q became a message: %q", tc.typed, m.Text)
		case <-time.After(10 * time.Second):
			t.Fatalf("%q pressed nothing:\n%s", tc.typed, out.String())
		}
		c.Edit(ctx, Chat, tc.msgID, "decided", nil)
	}
	io.WriteString(inW, "y\n") // no question is open: a message
	if m := <-h.msgs; m.Text != "y" {
		t.Errorf("message %q", m.Text)
	}
	inW.Close()
}

// TestConsoleAnswersOnlyCH2: taking answers only (chat -m, schedule
// run), lines read before the question never answer it and are named once
// it is asked; a line that is no choice is said to be none; input that
// ends with a question open, or before one is asked, denies it.
func TestConsoleAnswersOnlyCH2(t *testing.T) {
	out := &testwait.Buffer{}
	c := New(strings.NewReader("y\nyes\n"), out, Options{AnswersOnly: true, EndKey: "n"})
	h := answerer{newRecorder()}
	ctx := context.Background()
	if err := c.Run(ctx, h); err != nil { // the input ends before any question
		t.Fatal(err)
	}
	if len(h.msgs) != 0 {
		t.Fatalf("a line became a message: %q", (<-h.msgs).Text)
	}
	c.Send(ctx, approval)
	select {
	case p := <-h.presses:
		if p.Data != "ap:x:n" {
			t.Errorf("pressed %q, want Deny", p.Data)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the question was not denied at the end of input:\n%s", out.String())
	}
	got := out.String()
	for _, want := range []string{`"y" came before the question`, `"yes" came before the question`, "(no answer on stdin: denied)"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}

	inR, inW := io.Pipe()
	out = &testwait.Buffer{}
	c = New(inR, out, Options{AnswersOnly: true, EndKey: "n"})
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, h) }()
	c.Send(ctx, approval)
	io.WriteString(inW, "maybe\n")
	testwait.For(t, 10*time.Second, "the console to refuse an answer that is no choice", func() (bool, any) {
		return strings.Contains(out.String(), `"maybe" is not one of the choices: type its number or y / n / a`), out.String()
	})
	inW.Close() // open at the end of input: denied
	if p := <-h.presses; p.Data != "ap:x:n" {
		t.Errorf("pressed %q at the end of input, want Deny", p.Data)
	}
	<-done
}

// TestConsoleQuitCH1: /quit ends the console as the end of input does.
func TestConsoleQuitCH1(t *testing.T) {
	c := New(strings.NewReader("hello\n/quit\nnot read\n"), &testwait.Buffer{}, Options{})
	h := newRecorder()
	if err := c.Run(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	if len(h.msgs) != 1 || (<-h.msgs).Text != "hello" {
		t.Errorf("messages after /quit")
	}
}

// gatedAnswerer answers a press once its gate is open, as a desk busy
// with the turn does.
type gatedAnswerer struct{ gate chan struct{} }

func (gatedAnswerer) HandleMessage(context.Context, channels.Message) {}
func (g gatedAnswerer) HandlePress(ctx context.Context, p channels.Press) {
	<-g.gate
	p.Answer(ctx, "Denied")
}

// TestConsoleWaitsForItsOwnPressesCH2: a question asked after the input
// ended is denied by a press the console makes itself; Wait returns only
// once that press is answered, so the command never exits (or closes the
// store) before the owner sees the denial.
func TestConsoleWaitsForItsOwnPressesCH2(t *testing.T) {
	var out strings.Builder // not locked: the race detector checks Wait's ordering
	c := New(strings.NewReader(""), &out, Options{AnswersOnly: true, EndKey: "n"})
	h := gatedAnswerer{gate: make(chan struct{})}
	ctx := context.Background()
	if err := c.Run(ctx, h); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Send(ctx, approval); err != nil {
		t.Fatal(err)
	}
	go close(h.gate)
	c.Wait()
	if !strings.Contains(out.String(), "(no answer on stdin: denied)") {
		t.Errorf("Wait returned before the denial was printed:\n%s", out.String())
	}
}
