package main

import (
	"context"
	"fmt"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/store"
)

// cmdChat: the console channel, a terminal conversation with an agent,
// through the same desk as serve (app.Chat).
func cmdChat(ctx context.Context, a *cli, args []string) error {
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
	cfg, err := a.LoadConfig()
	if err != nil {
		return err
	}
	return a.Chat(ctx, cfg, app.ChatOptions{Agent: *agentName, In: a.stdin, Out: a.stdout, Once: *once, Listening: func() {
		fmt.Fprintf(a.stdout, "jarvisbot: talking to agent %s. Type a message; /quit ends.\n", *agentName)
	}})
}
