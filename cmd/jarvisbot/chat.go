package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/channels/console"
	"github.com/jarvisbot/jarvisbot/store"
)

// consoleChat is the console channel's conversation id.
const consoleChat = "console"

// cmdChat: the console channel, a terminal conversation with an agent.
func cmdChat(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "chat", "chat [--agent NAME] [-m MESSAGE]")
	agentName := fs.String("agent", store.DefaultAgent, "the agent to talk to")
	once := fs.String("m", "", "answer this one message and exit (for scripts); approvals are read from stdin")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "chat takes no arguments; use -m \"MESSAGE\" for one message")
	}
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	// Without a model the console says what to set, before anything starts.
	if _, err := a.providerFor(ctx, cfg, *agentName); err != nil {
		return err
	}
	asked := make(chan store.Approval, 16)
	svc, err := a.startService(ctx, cfg, a.logger(cfg), func(ap store.Approval) {
		if ap.State == store.ApprovalPending {
			asked <- ap
		}
	}, func(chat, text string) {
		if chat == consoleChat {
			fmt.Fprintf(a.stdout, "\n[continuing an earlier request] %s\n", text)
		}
	})
	if err != nil {
		return err
	}
	defer svc.Close()
	svc.connect(ctx)
	in, lines := stdinLines(ctx, a)
	c := terminal{a: a, svc: svc, agent: *agentName, in: in, lines: lines, asked: asked}
	// Requests that waited while jarvisbot was not running are asked first.
	for _, ap := range svc.pending {
		if ap.Chat == consoleChat {
			c.decide(ctx, ap)
		}
	}
	if *once != "" {
		return c.turn(ctx, *once)
	}
	fmt.Fprintf(a.stdout, "jarvisbot: talking to agent %s. Type a message; /quit ends.\n", *agentName)
	for {
		fmt.Fprint(a.stdout, "> ")
		l, ok := <-lines
		if !ok {
			fmt.Fprintln(a.stdout)
			return nil
		}
		line := strings.TrimSpace(l.Text)
		switch line {
		case "":
			continue
		case "/quit", "/exit":
			return nil
		}
		if err := c.turn(ctx, line); err != nil {
			fmt.Fprintf(a.stdout, "(%v — your message is kept; send it again to retry)\n", err)
		}
	}
}

// stdinLines reads the app's stdin line by line, each line with the
// mark of its arrival.
func stdinLines(ctx context.Context, a *app) (*console.Reader, <-chan console.Line) {
	in := console.NewReader(a.stdin)
	return in, in.Lines(ctx)
}

type terminal struct {
	a     *app
	svc   *service
	agent string
	in    *console.Reader
	lines <-chan console.Line
	asked <-chan store.Approval
}

// turn runs one turn, asking the owner about ask-tier calls as it goes.
func (c terminal) turn(ctx context.Context, text string) error {
	type done struct {
		res agents.Result
		err error
	}
	out := make(chan done, 1)
	go func() {
		r, err := c.svc.rt.Turn(ctx, agents.Input{Agent: c.agent, Chat: consoleChat, Text: text})
		out <- done{r, err}
	}()
	for {
		select {
		case d := <-out:
			if d.err != nil {
				return d.err
			}
			fmt.Fprintln(c.a.stdout, d.res.Text)
			return nil
		case ap := <-c.asked:
			c.decide(ctx, ap)
		}
	}
}

// decide asks the owner at the console about one request. Only a line
// typed after the question answers it: lines typed ahead or pasted with
// the message never do.
func (c terminal) decide(ctx context.Context, ap store.Approval) {
	w := c.a.stdout
	fmt.Fprintf(w, "Approval needed (%s, agent %s): %s\nApprove? [y]es / [n]o / [a]lways for this tool: ", ap.Tool, ap.Agent, ap.Summary)
	mark := c.in.Mark()
	var line console.Line
	for answered := false; !answered; {
		select {
		case <-ctx.Done():
			fmt.Fprintln(w, "\n(stopping: the request stays pending; you are asked again next time)")
			return
		case l, ok := <-c.lines:
			switch {
			case !ok:
				fmt.Fprintln(w, "\n(no answer on stdin: denied)")
				line, answered = console.Line{Text: "n"}, true
			case !l.After(mark):
				fmt.Fprintf(w, "\n(%q came before the question, so it does not answer it)\nApprove? [y]es / [n]o / [a]lways for this tool: ", strings.TrimSpace(l.Text))
			default:
				line, answered = l, true
			}
		}
	}
	answer := strings.ToLower(strings.TrimSpace(line.Text))
	approve := answer == "y" || answer == "yes" || answer == "a" || answer == "always"
	always := answer == "a" || answer == "always"
	if _, err := c.svc.engine.Decide(ctx, ap.ID, "console", approve, always); err != nil {
		fmt.Fprintf(w, "(%v)\n", err)
	}
}
