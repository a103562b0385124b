package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/channels/console"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/store"
)

// denyKey is what the console presses on a question its input can no
// longer answer: a request the owner cannot see is denied.
const denyKey = "n"

// cmdChat: the console channel, a terminal conversation with an agent,
// through the same desk as serve (its approvals, slash commands and
// inbox); no other channel and no scheduler run.
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
	// Without a model the console says what to set, before anything starts.
	if _, err := a.ChooseModel(ctx, cfg, *agentName); err != nil {
		return err
	}
	con := console.New(a.stdin, a.stdout, console.Options{AnswersOnly: *once != "", EndKey: denyKey})
	s, err := a.OpenSession(ctx, cfg, a.Logger(cfg), app.SessionOptions{Agent: *agentName, ApprovalChat: console.Chat},
		func(*app.Service) ([]channels.Channel, error) { return []channels.Channel{con}, nil })
	if err != nil {
		return err
	}
	defer s.Close()
	defer con.Wait() // the answers of its own presses, before the store closes
	// Requests the console left waiting are asked again; other chats'
	// wait for the channel they came from.
	if err := s.Resume(ctx, func(chat string) bool { return chat == console.Chat }); err != nil {
		return err
	}
	s.Connect(ctx)
	limit := cmp.Or(cfg.ShutdownTimeout, config.DefaultShutdownTimeout)
	recv, stopRecv := context.WithCancel(ctx)
	defer stopRecv()
	quiet := slog.New(slog.DiscardHandler) // serve's stop notes are not chat's output
	if *once != "" {
		ends := s.Listen(recv)
		err := s.Desk.Ask(ctx, channels.Message{Chat: console.Chat, User: console.User, Name: "you", Text: *once})
		return errors.Join(err, s.Shutdown(stopRecv, ends, len(s.Channels), limit, quiet))
	}
	fmt.Fprintf(a.stdout, "jarvisbot: talking to agent %s. Type a message; /quit ends.\n", *agentName)
	ends := s.Listen(recv)
	return s.Wait(ctx, stopRecv, ends, len(s.Channels), limit, quiet)
}
