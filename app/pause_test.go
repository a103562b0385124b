package app

import (
	"context"
	"testing"
)

// TestPauseAllKeepsWhoPausedFirstM4X5: the owner's pause over an app's
// keeps the app as who paused; each switch returns the state before; a
// resume lifts anyone's pause.
func TestPauseAllKeepsWhoPausedFirstM4X5(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	if st, err := in.Pause(ctx); err != nil || st.Paused {
		t.Fatalf("a new installation: %+v, %v", st, err)
	}
	if err := in.DB.SetPaused(ctx, true, "app ops"); err != nil {
		t.Fatal(err)
	}
	before, err := in.PauseAll(ctx)
	if err != nil || !before.Paused || before.By != "app ops" {
		t.Fatalf("pause over the app's: before %+v, %v", before, err)
	}
	if st, _ := in.Pause(ctx); !st.Paused || st.By != "app ops" {
		t.Errorf("after the owner's pause: %+v, want still the app's", st)
	}
	before, err = in.ResumeAll(ctx)
	if err != nil || !before.Paused {
		t.Fatalf("resume: before %+v, %v", before, err)
	}
	if st, _ := in.Pause(ctx); st.Paused {
		t.Errorf("after resume: %+v", st)
	}
	if before, _ := in.ResumeAll(ctx); before.Paused {
		t.Errorf("a second resume: before %+v, want not paused", before)
	}
}
