package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jarvisbot/jarvisbot"
)

// The owner's pause (X5, M4): an app with a full key may pause every agent
// (pause_all), and whatever an app can switch the owner can undo, from
// chat (/pause, /resume), the CLI (jarvisbot pause|resume) and the
// dashboard. Every door records the switch in the store, where serve reads
// it (at once for its own doors, within pauseSyncEvery for the CLI's).

// ownerPauser is who paused when the owner did, as the paused notice and
// an app's status say it.
const ownerPauser = "the owner"

// pauseStore is where the pause is kept.
type pauseStore interface {
	Paused(ctx context.Context) (bool, string, time.Time, error)
	SetPaused(ctx context.Context, paused bool, by string) error
}

// pauseState is the pause as it was before a switch.
type pauseState struct {
	paused bool
	by     string
}

// switchPause pauses (as the owner) or resumes every agent and returns
// the state before: a pause on top of one keeps who paused first.
func switchPause(ctx context.Context, db pauseStore, pause bool) (pauseState, error) {
	was, by, _, err := db.Paused(ctx)
	if err != nil {
		return pauseState{}, err
	}
	if was != pause {
		if err := db.SetPaused(ctx, pause, ownerPauser); err != nil {
			return pauseState{}, err
		}
	}
	return pauseState{paused: was, by: by}, nil
}

// pauseNote says what a switch did, for the door named by resumeHow
// ("send /resume", "run jarvisbot resume").
func pauseNote(before pauseState, pause bool, resumeHow string) string {
	switch {
	case pause && before.paused:
		return fmt.Sprintf("Already paused by %s. To go on, %s.", before.by, resumeHow)
	case pause:
		return fmt.Sprintf("Paused: no agent starts a turn (turns in progress finish), and messages wait until you resume. To go on, %s.", resumeHow)
	case !before.paused:
		return "Nothing is paused: agents start turns as usual."
	default:
		return fmt.Sprintf("Resumed (paused by %s): agents start turns again, and the messages that waited are answered now.", before.by)
	}
}

// ownerPause is the chat's /pause or /resume and the dashboard's button:
// the switch, taken up by this process at once.
func (s *session) ownerPause(ctx context.Context, pause bool) (pauseState, error) {
	before, err := switchPause(ctx, s.db, pause)
	if err != nil {
		return before, err
	}
	s.setPaused(pause)
	return before, nil
}

// pauseCommands are the chat's /pause and /resume; the desk answers
// commands of owners only.
func (s *session) pauseCommands(cmds map[string]func(ctx context.Context, chat string) string) {
	for name, pause := range map[string]bool{"pause": true, "resume": false} {
		cmds[name] = func(ctx context.Context, _ string) string {
			before, err := s.ownerPause(ctx, pause)
			if err != nil {
				s.log.Error("switching the pause from chat", "pause", pause, "err", err)
				return fmt.Sprintf("I could not %s: %v. Try again, or run jarvisbot %s.", name, err, name)
			}
			return pauseNote(before, pause, "send /resume")
		}
	}
}

const pauseUsage = `pause | jarvisbot resume`

// cmdPause is `jarvisbot pause` and `jarvisbot resume`: the switch in the
// store, which a running serve takes up within seconds.
func cmdPause(pause bool) func(ctx context.Context, a *app, args []string) error {
	name := map[bool]string{true: "pause", false: "resume"}[pause]
	return func(ctx context.Context, a *app, args []string) error {
		fs := newFlagSet(a, name, pauseUsage)
		pos, err := parseFlags(fs, args)
		if err != nil {
			return err
		}
		if len(pos) != 0 {
			fs.Usage()
			return jarvisbot.Errorf(jarvisbot.EINVALID, "usage: jarvisbot %s (it takes no arguments)", name)
		}
		_, db, err := a.open(ctx)
		if err != nil {
			return err
		}
		defer db.Close()
		before, err := switchPause(ctx, db, pause)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, pauseNote(before, pause, "run jarvisbot resume (or send /resume in chat)"))
		if before.paused != pause {
			fmt.Fprintln(a.stdout, "A running jarvisbot serve takes it up within seconds.")
		}
		return nil
	}
}

// pauseSwitch is the dashboard's pause switch over this session.
type pauseSwitch struct{ s *session }

func (p pauseSwitch) Paused(ctx context.Context) (bool, string, error) {
	paused, by, _, err := p.s.db.Paused(ctx)
	return paused, by, err
}

func (p pauseSwitch) SetPaused(ctx context.Context, pause bool) (string, error) {
	before, err := p.s.ownerPause(ctx, pause)
	if err != nil {
		return "", err
	}
	return pauseNote(before, pause, "press Resume"), nil
}
