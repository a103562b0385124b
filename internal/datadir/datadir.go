// Package datadir keeps jarvisbot's data directory the owner's alone
// (X3): what the owner tells jarvisbot (skills, plugins, the wiki, the
// keyring file) lives there, and no one else may read it, whatever the
// umask or whoever made a folder first.
package datadir

import (
	"os"

	"github.com/jarvisbot/jarvisbot"
)

// Private creates dir 0700 when it is missing, and tightens dir and each
// of folders that exists with looser modes (made by hand, by an older
// jarvisbot or under a loose umask), keeping the owner's bits. A folder not
// there yet is left alone: it is created 0700 when needed.
func Private(dir string, folders ...string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot create the data directory %s: %w", dir, err)
	}
	for _, d := range append([]string{dir}, folders...) {
		fi, err := os.Stat(d)
		if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 == 0 {
			continue
		}
		if err := os.Chmod(d, fi.Mode().Perm()&0o700); err != nil {
			return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%s can be read by others (mode %#o) and cannot be made private: %w; run chmod 700 %s", d, fi.Mode().Perm(), err, d)
		}
	}
	return nil
}
