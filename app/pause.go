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

// PauseState is whether every agent is paused, and by whom: OwnerPauser
// or "app NAME" (an app's pause_all).
type PauseState struct {
	Paused bool
	By     string
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
	return PauseState{Paused: was, By: by}, nil
}

// PauseNote says what a switch did, for the door named by resumeHow
// ("send /resume", "run jarvisbot resume").
func PauseNote(before PauseState, pause bool, resumeHow string) string {
	switch {
	case pause && before.Paused:
		return fmt.Sprintf("Already paused by %s. To go on, %s.", before.By, resumeHow)
	case pause:
		return fmt.Sprintf("Paused: no agent starts a turn (turns in progress finish), and messages wait until you resume. To go on, %s.", resumeHow)
	case !before.Paused:
		return "Nothing is paused: agents start turns as usual."
	default:
		return fmt.Sprintf("Resumed (paused by %s): agents start turns again, and the messages that waited are answered now.", before.By)
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
				s.log.Error("switching the pause from chat", "pause", pause, "err", err)
				return fmt.Sprintf("I could not %s: %v. Try again, or run jarvisbot %s.", name, err, name)
			}
			return PauseNote(before, pause, "send /resume")
		}
	}
}

// Pause is whether every agent is paused now, and by whom.
func (in *Installation) Pause(ctx context.Context) (PauseState, error) {
	paused, by, _, err := in.DB.Paused(ctx)
	return PauseState{Paused: paused, By: by}, err
}

// PauseAll pauses every agent as the owner (M4, X5) and returns the state
// before. In a one-off command the switch is in the store, which a
// running serve reads within PauseSyncEvery.
func (in *Installation) PauseAll(ctx context.Context) (PauseState, error) {
	return SwitchPause(ctx, in.DB, true)
}

// ResumeAll lets every agent start turns again, whoever paused, and
// returns the state before.
func (in *Installation) ResumeAll(ctx context.Context) (PauseState, error) {
	return SwitchPause(ctx, in.DB, false)
}

// PauseAll is the owner's pause inside serve (the dashboard's switch),
// taken up by this process at once.
func (s *Session) PauseAll(ctx context.Context) (PauseState, error) {
	return s.ownerPause(ctx, true)
}

// ResumeAll is the owner's resume inside serve: the chats and jobs that
// waited start at once.
func (s *Session) ResumeAll(ctx context.Context) (PauseState, error) {
	return s.ownerPause(ctx, false)
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
		s.log.Error("reading whether jarvisbot is paused", "err", err)
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
			s.log.Warn("reading whether jarvisbot is paused", "err", err)
		}
		return
	}
	now, by := s.pausedNow()
	switch {
	case !was && now:
		s.log.Info("jarvisbot is paused: no agent starts a turn until it is resumed", "by", by)
	case was && !now:
		s.log.Info("jarvisbot is resumed: agents start turns again")
		s.Desk.Resumed()
		s.Jobs.Resume()
	}
}
