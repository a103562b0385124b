package mcphost

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/store/secrets"
)

// stuckKeyring is a real file keyring that deletes nothing, and refuses
// the secrets named in refuse, as a keyring going read-only midway would.
type stuckKeyring struct {
	*secrets.Keyring
	refuse []string
}

func (k stuckKeyring) Set(ctx context.Context, name, value string) error {
	if slices.Contains(k.refuse, name) {
		return errors.New("keyring is read-only")
	}
	return k.Keyring.Set(ctx, name, value)
}

func (stuckKeyring) Delete(context.Context, string) error {
	return errors.New("keyring is read-only")
}

// TestKeptSecretsNotTakenBackAreNamedX3: when a command that moved
// literal secrets into the keyring fails and the keyring will not take
// them back, the error names each secret left there and how to delete it,
// whether the keyring failed midway or a later step (the store) did.
func TestKeptSecretsNotTakenBackAreNamedX3(t *testing.T) {
	ctx := context.Background()
	moves := []SecretMove{{What: "API key", Ref: "WEATHER_KEY", Value: "k-1"}, {What: "bearer token", Ref: "WEATHER_TOKEN", Value: "t-2"}}
	for _, c := range []struct {
		name   string
		refuse []string
		later  bool // keep succeeds and the caller takes the secrets back
		left   []string
	}{
		{name: "the keyring fails midway", refuse: []string{"WEATHER_TOKEN"}, left: []string{"WEATHER_KEY"}},
		{name: "a later step fails", later: true, left: []string{"WEATHER_KEY", "WEATHER_TOKEN"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			kr, err := secrets.Open(secrets.Options{Backend: secrets.BackendFile, Dir: filepath.Join(t.TempDir(), "keyring"),
				Password: func() (string, error) { return "test-passphrase", nil }, Getenv: func(string) string { return "" }})
			if err != nil {
				t.Fatal(err)
			}
			undo, err := KeepSecrets(ctx, stuckKeyring{Keyring: kr, refuse: c.refuse}, moves)
			if c.later {
				if err != nil {
					t.Fatal(err)
				}
				err = undo()
			}
			if err == nil {
				t.Fatal("no error, want one naming the secrets left in the keyring")
			}
			for _, want := range append([]string{"stay in the keyring", "jarvisbot secrets delete"}, c.left...) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			for _, v := range []string{"k-1", "t-2"} {
				if strings.Contains(err.Error(), v) {
					t.Errorf("error %q shows a secret's value", err)
				}
			}
			names, err := kr.Names(ctx)
			if err != nil || !slices.Equal(names, c.left) {
				t.Errorf("keyring holds %v (%v), want %v as said", names, err, c.left)
			}
		})
	}
}
