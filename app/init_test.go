package app

import (
	"context"
	"os"
	"testing"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

// TestInitWritesTheConfigAndTheStoreOnce: init writes the template where
// the environment says, creates the database with the default agent, and
// replaces an existing config only when forced.
func TestInitWritesTheConfigAndTheStoreOnce(t *testing.T) {
	ctx := context.Background()
	env := testEnv(t, nil)
	did, err := env.Init(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if did.ConfigPath != env.Getenv("XDG_CONFIG_HOME")+"/jarvisbot/config.yaml" || did.DataDir != env.Getenv("JARVIS_DATA_DIR") || did.Schema < 1 || did.Keyring != "file" {
		t.Errorf("initialized: %+v", did)
	}
	if _, err := os.Stat(did.ConfigPath); err != nil {
		t.Errorf("no config written: %v", err)
	}
	in, err := env.OpenInstallation(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.DB.Agent(ctx, store.DefaultAgent); err != nil {
		t.Errorf("no default agent: %v", err)
	}
	if err := in.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Init(ctx, false); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
		t.Errorf("a second init replaced the config: %v", err)
	}
	if _, err := env.Init(ctx, true); err != nil {
		t.Errorf("forced init: %v", err)
	}
}
