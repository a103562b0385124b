package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/channels/console"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/scheduler"
	"github.com/jarvisbot/jarvisbot/store"
)

// DenyKey is what the console presses on a question its input can no
// longer answer: a request the owner cannot see is denied.
const DenyKey = "n"

// ChatOptions say whom the console talks to, at which terminal.
type ChatOptions struct {
	Agent string
	In    io.Reader
	Out   io.Writer
	// Once is one message to answer before Chat ends (for scripts); the
	// console then reads only the answers to approvals.
	Once string
	// Listening is called once the console listens for the owner's
	// messages (not with Once): where the door greets the owner.
	Listening func()
}

// Chat is the console channel: a terminal conversation with an agent,
// through the same desk as serve (its approvals, slash commands and
// inbox); no other channel and no scheduler run.
func (a *Env) Chat(ctx context.Context, cfg config.Config, o ChatOptions) error {
	agentName := o.Agent
	// Without a model the console says what to set, before anything starts.
	if _, err := a.ChooseModel(ctx, cfg, agentName); err != nil {
		return err
	}
	con := console.New(o.In, o.Out, console.Options{AnswersOnly: o.Once != "", EndKey: DenyKey})
	s, err := a.OpenSession(ctx, cfg, a.Logger(cfg), SessionOptions{Agent: agentName, ApprovalChat: console.Chat},
		func(ReplicaStore) ([]channels.Channel, error) { return []channels.Channel{con}, nil })
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
	if o.Once != "" {
		ends := s.Listen(recv)
		err := s.Desk.Ask(ctx, channels.Message{Chat: console.Chat, User: console.User, Name: "you", Text: o.Once})
		return errors.Join(err, s.Shutdown(stopRecv, ends, len(s.Channels), limit, quiet))
	}
	if o.Listening != nil {
		o.Listening()
	}
	ends := s.Listen(recv)
	return s.Wait(ctx, stopRecv, ends, len(s.Channels), limit, quiet)
}

// RunScheduledAtTerminal runs one scheduled skill now (`schedule run`),
// its report written to out and its ask-tier calls asked on in: the
// console, taking answers only, through the same desk as serve. The
// report also goes to the owner's main chat, as on the clock, when that
// chat's bot is set up: the bot only sends, so a running serve keeps
// receiving.
func (a *Env) RunScheduledAtTerminal(ctx context.Context, cfg config.Config, name string, in io.Reader, out io.Writer) error {
	log := a.Logger(cfg)
	bots, err := a.BotChannels(ctx, cfg, nil)
	if err != nil {
		// The run still reports here; the chat is what cannot be reached.
		log.Warn("the report goes to this terminal only: the owner's chat cannot be reached", "err", err)
	}
	con := console.New(in, out, console.Options{AnswersOnly: true, EndKey: DenyKey})
	s, err := a.OpenSession(ctx, cfg, log, SessionOptions{Agent: store.DefaultAgent, ApprovalChat: console.Chat},
		func(ReplicaStore) ([]channels.Channel, error) { return []channels.Channel{con}, nil })
	if err != nil {
		return err
	}
	defer s.Close()
	defer con.Wait() // the answers of its own presses, before the store closes
	if err := s.Service.Resume(ctx); err != nil {
		return err
	}
	s.Connect(ctx)
	// The report goes through the console, the terminal's one writer.
	r, err := s.RunScheduled(ctx, name, func(ctx context.Context, chat, text string) error {
		for _, b := range bots {
			if strings.HasPrefix(chat, b.Name()+":") {
				if _, err := b.Send(ctx, channels.Outgoing{Chat: chat, Text: text}); err != nil {
					return err
				}
			}
		}
		_, err := con.Send(ctx, channels.Outgoing{Chat: console.Chat, Text: fmt.Sprintf("[report for %s]\n%s", chat, text)})
		return err
	})
	if err != nil {
		return err
	}
	return scheduler.RunError(r)
}
