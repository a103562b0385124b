// Package console is the console channel (CH1): the owner at the terminal,
// reading stdin and writing stdout. It is what `jarvisbot serve` runs when
// no bot token is configured, so a fresh machine has a working assistant,
// and what `chat` and `schedule run` run, through the same dispatcher.
// Buttons are numbered choices (and keys such as y / n / a); only a line
// typed after a question answers it (CH2).
package console

import (
	"context"
	"fmt"
	"io"
	"slices"
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

// Options shape a console for what it serves.
type Options struct {
	// AnswersOnly makes every line an answer to a question (chat -m,
	// schedule run): no line becomes a message. A line read while no
	// question is open is named, once one is asked, as having come before
	// it.
	AnswersOnly bool
	// EndKey is pressed, once input has ended, on every question still
	// open or asked later ("n": what the owner cannot answer is denied).
	// Empty leaves such questions open for the owner to answer elsewhere
	// or after a restart.
	EndKey string
}

// quitLines end the console as the end of input does.
var quitLines = []string{"/quit", "/exit"}

// question is a message with buttons, open until edited without them.
type question struct {
	id      string
	buttons []channels.Button
	// shownAt is the input mark when it was shown: only a line typed
	// after it answers it.
	shownAt uint64
}

// Console is the terminal channel.
type Console struct {
	in  *Reader
	out io.Writer
	opt Options

	mu   sync.Mutex
	seq  int
	open []question // oldest first; a number or key answers the newest
	held []Line     // AnswersOnly: lines read while no question was open
	// ended is set when input ended; h is the handler presses go to then.
	ended bool
	h     channels.Handler
	// selfPresses counts the presses the console makes on its own once
	// input has ended, so the command waits for their answers to be
	// printed (and the store they touch to stay open) before it exits.
	selfPresses sync.WaitGroup
}

// New returns a console over the given streams.
func New(in io.Reader, out io.Writer, opt Options) *Console {
	return &Console{in: NewReader(in), out: out, opt: opt}
}

// Name is "console".
func (c *Console) Name() string { return "console" }

// Run reads lines until the end of input, /quit or ctx ends. A line that
// is the number or key of a shown button, typed after the buttons
// appeared, presses it; every other line is a message, unless the console
// takes answers only.
func (c *Console) Run(ctx context.Context, h channels.Handler) error {
	c.mu.Lock()
	c.h = h
	c.mu.Unlock()
	lines := c.in.Lines(ctx)
	for {
		select {
		case <-ctx.Done():
			return nil
		case line, ok := <-lines:
			text := strings.TrimSpace(line.Text)
			if !ok || slices.Contains(quitLines, text) {
				c.end(ctx)
				return nil
			}
			if text != "" {
				c.take(ctx, h, line, text)
			}
		}
	}
}

// take hands one line on: a press, a message, or a note to the owner.
func (c *Console) take(ctx context.Context, h channels.Handler, line Line, text string) {
	p, res := c.press(line, text)
	switch res {
	case pressed:
		h.HandlePress(ctx, p)
	case early:
		// Typed ahead or pasted before the question: never an answer to
		// it, and not a message the owner meant either.
		c.mu.Lock()
		fmt.Fprintf(c.out, "(%q came before the question, so it does not answer it: type your choice now)\n", text)
		c.mu.Unlock()
	case notChoice:
		c.mu.Lock()
		fmt.Fprintf(c.out, "(%q is not one of the choices: type its number or %s)\n", text, c.keys())
		c.mu.Unlock()
	case held:
	default:
		h.HandleMessage(ctx, channels.Message{Chat: Chat, User: User, Name: "you", Text: text})
	}
}

// What a line is to the open question.
type lineKind int

const (
	message   lineKind = iota
	pressed            // it presses a button
	early              // it would, but was typed before the question
	notChoice          // answers only: a line after the question that is no choice
	held               // answers only: no question is open yet
)

// press matches a line to the newest open question's buttons.
func (c *Console) press(line Line, text string) (channels.Press, lineKind) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.open) == 0 {
		if c.opt.AnswersOnly {
			c.held = append(c.held, line)
			return channels.Press{}, held
		}
		return channels.Press{}, message
	}
	q := c.open[len(c.open)-1]
	i := choice(q.buttons, text)
	switch {
	case i < 0 && c.opt.AnswersOnly && line.After(q.shownAt):
		return channels.Press{}, notChoice
	case i < 0 && c.opt.AnswersOnly:
		return channels.Press{}, early
	case i < 0:
		return channels.Press{}, message
	case !line.After(q.shownAt):
		return channels.Press{}, early
	}
	return c.pressOf(q, i, func(notice string) string { return "(" + notice + ")" }), pressed
}

// choice is the index of the button a line names by number or key, or -1.
func choice(btns []channels.Button, text string) int {
	if n, err := strconv.Atoi(text); err == nil {
		if n >= 1 && n <= len(btns) {
			return n - 1
		}
		return -1
	}
	for i, b := range btns {
		for _, k := range b.Keys {
			if strings.EqualFold(k, text) {
				return i
			}
		}
	}
	return -1
}

// pressOf is a press of a question's button; its answer is printed as
// show words it.
func (c *Console) pressOf(q question, i int, show func(notice string) string) channels.Press {
	return channels.Press{Chat: Chat, User: User, MessageID: q.id, Data: q.buttons[i].Data,
		Answer: func(_ context.Context, notice string) error {
			// The desk answers from its own goroutine: one writer at a
			// time, as for Send.
			c.mu.Lock()
			defer c.mu.Unlock()
			_, err := fmt.Fprintln(c.out, show(notice))
			return err
		}}
}

// keys lists the newest question's first keys: "y / n / a". Call with
// c.mu held.
func (c *Console) keys() string {
	var ks []string
	for _, b := range c.open[len(c.open)-1].buttons {
		if len(b.Keys) > 0 {
			ks = append(ks, b.Keys[0])
		}
	}
	return strings.Join(ks, " / ")
}

// end notes that input ended and answers the open questions with EndKey.
func (c *Console) end(ctx context.Context) {
	c.mu.Lock()
	c.ended = true
	var ps []channels.Press
	for _, q := range c.open {
		if p, ok := c.endPress(q); ok {
			ps = append(ps, p)
		}
	}
	c.mu.Unlock()
	for _, p := range ps {
		c.h.HandlePress(ctx, p)
	}
}

// endPress is the press of a question's EndKey button, if it has one.
// Call with c.mu held.
func (c *Console) endPress(q question) (channels.Press, bool) {
	if c.opt.EndKey == "" || c.h == nil {
		return channels.Press{}, false
	}
	i := choice(q.buttons, c.opt.EndKey)
	if i < 0 {
		return channels.Press{}, false
	}
	return c.pressOf(q, i, func(notice string) string { return "(no answer on stdin: " + lowerFirst(notice) + ")" }), true
}

// lowerFirst lowers a notice's first letter, to follow words of ours.
func lowerFirst(s string) string {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return s
	}
	return string(s[0]+'a'-'A') + s[1:]
}

// Send prints a message; its buttons are numbered, and typing the number
// (or a button's key) presses one.
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
	for i, btn := range flat {
		fmt.Fprintf(&b, "  [%d] %s", i+1, btn.Label)
		if len(btn.Keys) > 0 {
			fmt.Fprintf(&b, " (%s)", btn.Keys[0])
		}
	}
	if len(flat) > 0 {
		b.WriteString("\n")
	}
	// The mark is taken before the prompt goes out: an owner (or a test)
	// who answers as soon as it shows may be read before a mark taken
	// after it, and be told the answer came early. A line read between
	// the two was typed before the prompt could be seen; only one read in
	// those microseconds would be taken as an answer.
	mark := c.in.Mark()
	_, err := io.WriteString(c.out, b.String())
	if len(flat) > 0 {
		c.ask(question{id: id, buttons: flat, shownAt: mark})
	}
	return id, err
}

// ask opens a question: lines held for one are named as early, and once
// input has ended its EndKey is pressed. Call with c.mu held.
func (c *Console) ask(q question) {
	c.open = append(c.open, q)
	for _, l := range c.held {
		fmt.Fprintf(c.out, "(%q came before the question, so it does not answer it)\n", strings.TrimSpace(l.Text))
	}
	c.held = nil
	if p, ok := c.endPress(q); ok && c.ended {
		// Not under c.mu, and not before Send returns: the press edits
		// this very message.
		c.selfPresses.Go(func() { c.h.HandlePress(context.Background(), p) })
	}
}

// Wait returns once the presses the console made on its own, after input
// ended, are handled and their answers printed. Call it after the desk
// has stopped asking and before the store closes.
func (c *Console) Wait() { c.selfPresses.Wait() }

// Edit prints the new text; without buttons the question is closed.
func (c *Console) Edit(_ context.Context, _ string, messageID, text string, buttons [][]channels.Button) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if buttons == nil {
		c.open = slices.DeleteFunc(c.open, func(q question) bool { return q.id == messageID })
	}
	_, err := fmt.Fprintf(c.out, "%s\n", text)
	return err
}
