package app

import (
	"context"

	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/store/secrets"
)

// Keyring is the owner's keyring, opened for jarvisbot secrets (X3): values
// are set, names listed and secrets deleted; a value is never read back
// out here, so no door can print one.
type Keyring struct {
	k *secrets.Keyring
}

// OpenKeyring opens the keyring cfg selects.
func (a *Env) OpenKeyring(cfg config.Config) (Keyring, error) {
	k, err := a.OpenSecrets(cfg)
	if err != nil {
		return Keyring{}, err
	}
	return Keyring{k: k}, nil
}

// Backend names the keyring's backend: file, secret-service, keyctl,
// pass or kwallet.
func (k Keyring) Backend() string { return k.k.Backend() }

// SetSecret stores value under name (secrets.ValidName), replacing any
// value it had.
func (k Keyring) SetSecret(ctx context.Context, name, value string) error {
	return k.k.Set(ctx, name, value)
}

// SecretNames are the names of the secrets stored, sorted.
func (k Keyring) SecretNames(ctx context.Context) ([]string, error) {
	return k.k.Names(ctx)
}

// DeleteSecret removes the secret name; ENOTFOUND when there is none.
func (k Keyring) DeleteSecret(ctx context.Context, name string) error {
	return k.k.Delete(ctx, name)
}
