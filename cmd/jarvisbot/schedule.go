package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/channels/console"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/scheduler"
	"github.com/jarvisbot/jarvisbot/store"
)

// cmdSchedule: the scheduled skills (SC1). Only `run` starts the service
// (MCP servers, the runtime); list, pause and resume read and write the
// store.
func cmdSchedule(ctx context.Context, a *cli, args []string) error {
	fs := newFlagSet(a, "schedule", "schedule list | run NAME | pause NAME | resume NAME")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		pos = []string{"list"}
	}
	switch {
	case pos[0] == "list" && len(pos) == 1, pos[0] == "run" && len(pos) == 2,
		(pos[0] == "pause" || pos[0] == "resume") && len(pos) == 2:
	default:
		return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot schedule list | run NAME | pause NAME | resume NAME")
	}
	if pos[0] == "run" {
		cfg, err := a.LoadConfig()
		if err != nil {
			return err
		}
		return runScheduled(ctx, a, cfg, pos[1])
	}
	in, err := a.OpenInstallation(ctx)
	if err != nil {
		return err
	}
	defer in.Close()
	if pos[0] == "list" {
		sch, err := in.Schedule(ctx)
		a.warn(sch.Warnings)
		if err != nil {
			return err
		}
		return app.WriteSchedule(a.stdout, sch.Entries)
	}
	r, err := in.PauseScheduled(ctx, pos[1], pos[0] == "pause")
	a.warn(r.Warnings)
	if err != nil {
		return err
	}
	if r.Paused {
		fmt.Fprintln(a.stdout, r.Skill+" is paused.")
	} else {
		fmt.Fprintln(a.stdout, r.Skill+" is resumed.")
	}
	return nil
}

// warn shows the warnings a use case returned, one a line.
func (a *cli) warn(lines []string) {
	for _, l := range lines {
		fmt.Fprintln(a.Stderr, l)
	}
}

// runScheduled runs one scheduled skill now, its report printed here and
// its ask-tier calls asked at this terminal: the console, taking answers
// only, through the same desk as serve. The report also goes to the
// owner's main chat, as on the clock, when that chat's bot is set up: the
// bot only sends, so a running serve keeps receiving.
func runScheduled(ctx context.Context, a *cli, cfg config.Config, name string) error {
	log := a.Logger(cfg)
	bots, err := a.BotChannels(ctx, cfg, nil)
	if err != nil {
		// The run still reports here; the chat is what cannot be reached.
		log.Warn("the report goes to this terminal only: the owner's chat cannot be reached", "err", err)
	}
	con := console.New(a.stdin, a.stdout, console.Options{AnswersOnly: true, EndKey: app.DenyKey})
	s, err := a.OpenSession(ctx, cfg, log, app.SessionOptions{Agent: store.DefaultAgent, ApprovalChat: console.Chat},
		func(*app.Service) ([]channels.Channel, error) { return []channels.Channel{con}, nil })
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
