// Package console is the console channel: the owner at the terminal,
// reading stdin and writing stdout. It is what `jarvisbot serve` runs when
// no bot token is configured, so a fresh machine has a working assistant.
package console

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/jarvisbot/jarvisbot/channels"
)

// Chat and User name the console everywhere.
const (
	Chat = "console"
	User = "console"
)

// Console is the terminal channel.
type Console struct {
	in  *Reader
	out io.Writer

	mu      sync.Mutex
	seq     int
	buttons map[string][]channels.Button // by message id, while shown
	lastBtn string                       // the message whose buttons a number picks
	// shownAt is the input mark when lastBtn's buttons were shown: only
	// a line typed after it presses one.
	shownAt uint64
}

// New returns a console over the given streams.
func New(in io.Reader, out io.Writer) *Console {
	return &Console{in: NewReader(in), out: out, buttons: map[string][]channels.Button{}}
}

// Name is "console".
func (c *Console) Name() string { return "console" }

// Run reads lines until EOF or ctx ends. A line that is the number of a
// shown button, typed after the buttons appeared, presses it; every other
// line is a message.
func (c *Console) Run(ctx context.Context, h channels.Handler) error {
	lines := c.in.Lines(ctx)
	for {
		select {
		case <-ctx.Done():
			return nil
		case line, ok := <-lines:
			if !ok {
				return nil
			}
			text := strings.TrimSpace(line.Text)
			if text == "" {
				continue
			}
			p, ok, early := c.press(line, text)
			switch {
			case ok:
				h.HandlePress(ctx, p)
			case early:
				// Typed ahead or pasted before the question: never an
				// answer to it, and not a message the owner meant either.
				fmt.Fprintf(c.out, "(%q came before the question, so it does not answer it: type your choice now)\n", text)
			default:
				h.HandleMessage(ctx, channels.Message{Chat: Chat, User: User, Name: "you", Text: text})
			}
		}
	}
}

// press turns a button number into a press. early is set for a number
// that would press a button but was typed before the buttons appeared.
func (c *Console) press(line Line, text string) (p channels.Press, ok, early bool) {
	n, err := strconv.Atoi(text)
	c.mu.Lock()
	defer c.mu.Unlock()
	btns := c.buttons[c.lastBtn]
	if err != nil || n < 1 || n > len(btns) {
		return channels.Press{}, false, false
	}
	if !line.After(c.shownAt) {
		return channels.Press{}, false, true
	}
	return channels.Press{Chat: Chat, User: User, MessageID: c.lastBtn, Data: btns[n-1].Data,
		Answer: func(_ context.Context, notice string) error {
			_, err := fmt.Fprintf(c.out, "(%s)\n", notice)
			return err
		}}, true, false
}

// Send prints a message; its buttons are numbered, and typing the number
// presses one.
func (c *Console) Send(_ context.Context, m channels.Outgoing) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	id := strconv.Itoa(c.seq)
	var b strings.Builder
	b.WriteString(strings.TrimRight(m.Text, "\n"))
	b.WriteByte('\n')
	var flat []channels.Button
	for _, row := range m.Buttons {
		flat = append(flat, row...)
	}
	if len(flat) > 0 {
		for i, btn := range flat {
			fmt.Fprintf(&b, "  [%d] %s", i+1, btn.Label)
		}
		b.WriteString("\n")
		c.buttons[id] = flat
		c.lastBtn = id
	}
	_, err := io.WriteString(c.out, b.String())
	if len(flat) > 0 {
		c.shownAt = c.in.Mark() // after the prompt is out
	}
	return id, err
}

// Edit prints the new text; the old message's buttons stop working.
func (c *Console) Edit(_ context.Context, _ string, messageID, text string, buttons [][]channels.Button) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if buttons == nil {
		delete(c.buttons, messageID)
		if c.lastBtn == messageID {
			c.lastBtn = ""
		}
	}
	_, err := fmt.Fprintf(c.out, "%s\n", text)
	return err
}
