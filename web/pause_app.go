package web

import (
	"context"

	"github.com/jarvisbot/jarvisbot/app"
)

// PauseSwitch is the header's pause switch over the running session: the
// owner's pause, taken up by this process at once.
func PauseSwitch(s *app.Session) Pause { return pauseSwitch{s} }

type pauseSwitch struct{ s *app.Session }

func (p pauseSwitch) Paused(ctx context.Context) (bool, string, error) {
	st, err := p.s.Installation().Pause(ctx)
	return st.Paused, st.By, err
}

func (p pauseSwitch) SetPaused(ctx context.Context, pause bool) (string, error) {
	switchIt := p.s.ResumeAll
	if pause {
		switchIt = p.s.PauseAll
	}
	before, err := switchIt(ctx)
	if err != nil {
		return "", err
	}
	return app.PauseNote(before, pause, "press Resume"), nil
}
