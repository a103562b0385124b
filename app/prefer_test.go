package app

import (
	"context"
	"testing"

	"github.com/jarvisbot/jarvisbot"
)

// TestPreferC5: a plugin or server is marked preferred and unmarked in
// the store; one that does not exist is refused as not found, and no
// mark is written for it.
func TestPreferC5(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	if _, err := in.PreferServer(ctx, "nosuch", false); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("an unknown server: err = %v, want not found", err)
	}
	if _, err := in.PreferPlugin(ctx, "nosuch-plugin", false); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("an unknown plugin: err = %v, want not found", err)
	}
	p, err := in.PreferPlugin(ctx, "github", false)
	if err != nil || p != (Preference{Kind: "plugin", Name: "github"}) {
		t.Fatalf("PreferPlugin = %+v, %v", p, err)
	}
	marks, err := in.DB.Preferred(ctx)
	if err != nil || len(marks) != 1 || marks[0].Kind != "plugin" || marks[0].Name != "github" {
		t.Fatalf("marks after preferring = %+v, %v", marks, err)
	}
	if p, err := in.PreferPlugin(ctx, "github", true); err != nil || !p.Cleared {
		t.Fatalf("clearing = %+v, %v", p, err)
	}
	if marks, err := in.DB.Preferred(ctx); err != nil || len(marks) != 0 {
		t.Errorf("marks after clearing = %+v, %v", marks, err)
	}
}
