//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package signin

import "context"

// lockFile has no cross-process lock on this system: renewals are
// serialised within the process only, and a refresh refused because
// another process renewed the sign-in first still finds the renewed one
// in the keyring before giving up.
func lockFile(ctx context.Context, path string) (func(), error) {
	return func() {}, ctx.Err()
}
