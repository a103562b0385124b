//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package filelock

import (
	"context"
	"time"
)

// Lock has no cross-process lock on this system: callers serialise within
// their process and say what that leaves open.
func Lock(ctx context.Context, path string, poll time.Duration) (func(), error) {
	return func() {}, ctx.Err()
}

// Supported reports whether Lock excludes other processes here.
const Supported = false
