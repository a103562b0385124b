package app

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/config"
)

// TestProviderNeedsTheOwnersClientP6: without the client id and secret
// the sign-in says exactly which secrets to set: the names the
// installation keeps them under, from the config's defaults.
func TestProviderNeedsTheOwnersClientP6(t *testing.T) {
	cfg := config.Config{DataDir: t.TempDir()}
	cfg.Keyring.Backend = "file"
	a := &Env{Getenv: func(string) string { return "" }, Stderr: io.Discard}
	env := a.BuiltinEnv(context.Background(), cfg, nil)
	_, err := env.Provider("google-calendar")
	if err == nil || !strings.Contains(err.Error(), "jarvisbot secrets set GOOGLE_OAUTH_CLIENT_ID") || !strings.Contains(err.Error(), "GOOGLE_OAUTH_CLIENT_SECRET") {
		t.Errorf("Google without a client: %v", err)
	}
	_, err = env.Provider("spotify")
	if err == nil || !strings.Contains(err.Error(), "SPOTIFY_CLIENT_ID") {
		t.Errorf("Spotify without a client: %v", err)
	}
}
