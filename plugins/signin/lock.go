package signin

import (
	"context"
	"path/filepath"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/filelock"
)

// lockPoll is how often a refresh waiting for another process's lock
// tries again.
const lockPoll = 10 * time.Millisecond

// lockName is the lock file of a plugin's sign-in in the lock directory.
// The '+' keeps it out of the keyring's names: secrets.ValidName refuses
// it, so the file keyring never lists the lock as a secret.
func lockName(plugin string) string { return "signin+" + plugin + ".lock" }

// lock holds the plugin's sign-in for one read, renewal and write of its
// keyring entry: in this process, and across processes while the Manager
// has a lock directory. With refresh token rotation two renewals of the
// same sign-in must not overlap: the second would spend a refresh token
// the first just rotated away, and the server may end the sign-in for it.
// The returned function releases the lock.
func (m *Manager) lock(ctx context.Context, plugin string) (func(), error) {
	m.mu.Lock()
	ch := m.locks[plugin]
	if ch == nil {
		ch = make(chan struct{}, 1)
		m.locks[plugin] = ch
	}
	m.mu.Unlock()
	select {
	case ch <- struct{}{}:
	case <-ctx.Done():
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "the sign-in to %s is busy being renewed: %w; try again", plugin, ctx.Err())
	}
	if m.opt.LockDir == "" {
		return func() { <-ch }, nil
	}
	path := filepath.Join(m.opt.LockDir, lockName(plugin))
	release, err := filelock.Lock(ctx, path, lockPoll)
	if err != nil {
		<-ch
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot lock the sign-in to %s at %s: %w; check that the directory is writable", plugin, path, err)
	}
	return func() { release(); <-ch }, nil
}
