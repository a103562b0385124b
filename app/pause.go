package app

import (
	"context"
	"fmt"
	"time"
)

// OwnerPauser is who paused when the owner did, as the paused notice and
// an app's status say it.
const OwnerPauser = "the owner"

// PauseStore is where the pause is kept.
type PauseStore interface {
	Paused(ctx context.Context) (bool, string, time.Time, error)
	SetPaused(ctx context.Context, paused bool, by string) error
}

// PauseState is the pause as it was before a switch.
type PauseState struct {
	Paused bool
	by     string
}

// SwitchPause pauses (as the owner) or resumes every agent and returns
// the state before: a pause on top of one keeps who paused first.
func SwitchPause(ctx context.Context, db PauseStore, pause bool) (PauseState, error) {
	was, by, _, err := db.Paused(ctx)
	if err != nil {
		return PauseState{}, err
	}
	if was != pause {
		if err := db.SetPaused(ctx, pause, OwnerPauser); err != nil {
			return PauseState{}, err
		}
	}
	return PauseState{Paused: was, by: by}, nil
}

// PauseNote says what a switch did, for the door named by resumeHow
// ("send /resume", "run jarvisbot resume").
func PauseNote(before PauseState, pause bool, resumeHow string) string {
	switch {
	case pause && before.Paused:
		return fmt.Sprintf("Already paused by %s. To go on, %s.", before.by, resumeHow)
	case pause:
		return fmt.Sprintf("Paused: no agent starts a turn (turns in progress finish), and messages wait until you resume. To go on, %s.", resumeHow)
	case !before.Paused:
		return "Nothing is paused: agents start turns as usual."
	default:
		return fmt.Sprintf("Resumed (paused by %s): agents start turns again, and the messages that waited are answered now.", before.by)
	}
}

// ownerPause is the chat's /pause or /resume and the dashboard's button:
// the switch, taken up by this process at once.
func (s *Session) ownerPause(ctx context.Context, pause bool) (PauseState, error) {
	before, err := SwitchPause(ctx, s.DB, pause)
	if err != nil {
		return before, err
	}
	s.SetPaused(pause)
	return before, nil
}

// pauseCommands are the chat's /pause and /resume; the desk answers
// commands of owners only.
func (s *Session) pauseCommands(cmds map[string]func(ctx context.Context, chat string) string) {
	for name, pause := range map[string]bool{"pause": true, "resume": false} {
		cmds[name] = func(ctx context.Context, _ string) string {
			before, err := s.ownerPause(ctx, pause)
			if err != nil {
				s.Log.Error("switching the pause from chat", "pause", pause, "err", err)
				return fmt.Sprintf("I could not %s: %v. Try again, or run jarvisbot %s.", name, err, name)
			}
			return PauseNote(before, pause, "send /resume")
		}
	}
}

// PauseSwitch is the dashboard's pause switch over this session.
type PauseSwitch struct{ Session *Session }

func (p PauseSwitch) Paused(ctx context.Context) (bool, string, error) {
	paused, by, _, err := p.Session.DB.Paused(ctx)
	return paused, by, err
}

func (p PauseSwitch) SetPaused(ctx context.Context, pause bool) (string, error) {
	before, err := p.Session.ownerPause(ctx, pause)
	if err != nil {
		return "", err
	}
	return PauseNote(before, pause, "press Resume"), nil
}

// pausedNow is pause_all's state, for the desk.
func (s *Service) pausedNow() (bool, string) {
	s.pauseMu.Lock()
	defer s.pauseMu.Unlock()
	return s.Paused, s.pausedBy
}

// loadPause reads pause_all's state as the last run left it.
func (s *Service) loadPause(ctx context.Context) error {
	p, by, _, err := s.DB.Paused(ctx)
	if err != nil {
		return err
	}
	s.pauseMu.Lock()
	s.Paused, s.pausedBy = p, by
	s.pauseMu.Unlock()
	return nil
}

// setPaused takes up a pause or a resume the store has recorded: on a
// resume, the chats and jobs that waited start.
func (s *Session) SetPaused(p bool) {
	if err := s.loadPause(context.Background()); err != nil {
		s.Log.Error("reading whether jarvisbot is paused", "err", err)
		s.pauseMu.Lock()
		s.Paused = p
		s.pauseMu.Unlock()
	}
	if !p {
		s.Desk.Resumed()
		s.Jobs.Resume()
	}
}

// PauseSyncEvery is how often serve reads whether jarvisbot is paused:
// the owner may pause or resume on another replica, or with the CLI.
const PauseSyncEvery = 2 * time.Second

// syncPause takes up a pause or resume recorded by another replica or
// the CLI.
func (s *Session) syncPause(ctx context.Context) {
	was, _ := s.pausedNow()
	if err := s.loadPause(ctx); err != nil {
		if ctx.Err() == nil {
			s.Log.Warn("reading whether jarvisbot is paused", "err", err)
		}
		return
	}
	now, by := s.pausedNow()
	switch {
	case !was && now:
		s.Log.Info("jarvisbot is paused: no agent starts a turn until it is resumed", "by", by)
	case was && !now:
		s.Log.Info("jarvisbot is resumed: agents start turns again")
		s.Desk.Resumed()
		s.Jobs.Resume()
	}
}
