//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package filelock

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"
)

// Lock takes an exclusive flock on the file at path, creating it, and
// returns the function that releases it. flock belongs to the open file,
// so it also excludes other holders in this process, and the kernel
// releases it when a process dies holding it: a crash never leaves the
// file locked. It tries again every poll until ctx ends.
func Lock(ctx context.Context, path string, poll time.Duration) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	fd := int(f.Fd())
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(fd, syscall.LOCK_UN) // closing the file releases it as well
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, err
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		}
	}
}

// Supported reports whether Lock excludes other processes here.
const Supported = true
