package app

import (
	"context"
	"slices"
	"testing"

	"github.com/jarvisbot/jarvisbot"
)

// TestKeyringSetsListsAndDeletesSecretsX3: secrets set through the
// keyring are listed by name and found by the service (SecretOrEnv);
// bad names are refused before anything is stored, and deleting an
// unknown one is ENOTFOUND.
func TestKeyringSetsListsAndDeletesSecretsX3(t *testing.T) {
	ctx := context.Background()
	in := testInstallation(t, nil)
	k, err := in.Env.OpenKeyring(in.Config)
	if err != nil {
		t.Fatal(err)
	}
	if k.Backend() != "file" {
		t.Errorf("backend %q, want file", k.Backend())
	}
	if err := k.SetSecret(ctx, "GITHUB_TOKEN", "ghp_x"); err != nil {
		t.Fatal(err)
	}
	if got := in.Env.SecretOrEnv(ctx, in.Config, "GITHUB_TOKEN"); got != "ghp_x" {
		t.Errorf("the service finds %q", got)
	}
	if err := k.SetSecret(ctx, "bad name", "x"); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("bad name: %v", err)
	}
	if names, err := k.SecretNames(ctx); err != nil || !slices.Equal(names, []string{"GITHUB_TOKEN"}) {
		t.Errorf("names: %v, %v", names, err)
	}
	if err := k.DeleteSecret(ctx, "GITHUB_TOKEN"); err != nil {
		t.Fatal(err)
	}
	if err := k.DeleteSecret(ctx, "GITHUB_TOKEN"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Errorf("deleting it again: %v", err)
	}
}
