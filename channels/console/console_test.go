package console

import (
	"context"
	"io"
	"strings"
	"sync"
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

// syncBuffer is an output the test reads while the console writes.
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

// TestTypedAheadNeverAnswersCH2: a number typed before the approval's
// buttons appeared (typed ahead, or pasted with the message) does not
// press one; the same number typed after them does.
func TestTypedAheadNeverAnswersCH2(t *testing.T) {
	inR, inW := io.Pipe()
	out := &syncBuffer{}
	c := New(inR, out)
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
