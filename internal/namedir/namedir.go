// Package namedir turns names from outside into paths (X1). jarvisbot keeps
// several kinds of thing as one folder per name under a parent folder: the
// owner's skills (<data>/skills/NAME), each agent's own skills
// (<data>/agents/AGENT/skills/NAME), the local plugins (<data>/plugins/NAME).
// A name typed in a command, sent by a model or read from a file reaches
// such a folder only through a Dir, which checks that it is a plain name
// (no separator, no "." or "..", no control character, not absolute, not
// over-long) and then the kind's own rule, and which never follows a
// symbolic link out: an entry that is a link is removed as a link, and is
// neither read nor moved as a folder.
package namedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jarvisbot/jarvisbot"
)

// MaxName is the longest plain name in bytes; every kind's own rule is
// stricter, and file systems allow 255.
const MaxName = 255

// Dir is a parent folder holding one entry per name. The zero value is
// not usable; build one with New or Sub.
type Dir struct {
	path  string
	what  string // what one entry is: "skill", "plugin", "agent"
	valid func(name string) error
	err   error // set by Sub when the parent's name was refused
}

// New returns the folder path whose entries are named by valid, a kind's
// own rule (nil for none beyond a plain name). what names an entry in
// errors: "skill", "plugin".
func New(path, what string, valid func(name string) error) Dir {
	return Dir{path: path, what: what, valid: valid}
}

// Sub returns the folder that sub builds from the path of entry name of d:
// the agents' folder's Sub("writer", ...) gives that agent's skills. When
// name is refused, every method of the result fails with the reason, so
// that a caller cannot reach a path by forgetting to check.
func (d Dir) Sub(name string, sub func(path string) Dir) Dir {
	p, err := d.Join(name)
	if err != nil {
		return Dir{what: d.what, err: err}
	}
	return sub(p)
}

// Path is the parent folder, or "" when the Dir was refused (see Err).
func (d Dir) Path() string { return d.path }

// Err is why the Dir was refused, or nil.
func (d Dir) Err() error { return d.err }

// Check reports, as EINVALID, why name cannot name an entry.
func (d Dir) Check(name string) error {
	if d.err != nil {
		return d.err
	}
	if why := plain(name); why != "" {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%.80q is not a plain %s name: it %s; give the name of one %s", name, d.what, why, d.what)
	}
	if d.valid == nil {
		return nil
	}
	err := d.valid(name)
	if err == nil || jarvisbot.ErrorCode(err) != jarvisbot.EINTERNAL {
		return err
	}
	return jarvisbot.Errorf(jarvisbot.EINVALID, "%s name %w", d.what, err)
}

// plain returns why name is not a plain name, or "".
func plain(name string) string {
	switch {
	case name == "":
		return "is empty"
	case len(name) > MaxName:
		return fmt.Sprintf("is %d bytes long (at most %d)", len(name), MaxName)
	case name == "." || name == "..":
		return "names a folder itself, not an entry in it"
	case !utf8.ValidString(name):
		return "is not UTF-8 text"
	case strings.ContainsAny(name, `/\`):
		return "holds a path separator"
	case filepath.IsAbs(name) || filepath.VolumeName(name) != "":
		return "is an absolute path"
	case strings.ContainsFunc(name, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }):
		return "holds a control or invisible character"
	}
	return ""
}

// Join returns the path of entry name after checking the name. It does
// not look at the disk.
func (d Dir) Join(name string) (string, error) {
	if err := d.Check(name); err != nil {
		return "", err
	}
	return filepath.Join(d.path, name), nil
}

// Kind is what an entry is on disk.
type Kind int

// The kinds of entry.
const (
	Missing Kind = iota
	Folder
	Link // a symbolic link, wherever it leads
	File // anything else: a file, a device, a socket
)

// Stat checks name and says what its entry is, without following a link.
func (d Dir) Stat(name string) (string, Kind, error) {
	p, err := d.Join(name)
	if err != nil {
		return "", Missing, err
	}
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return p, Missing, nil
	case err != nil:
		return p, Missing, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot read %s: %w", p, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return p, Link, nil
	case fi.IsDir():
		return p, Folder, nil
	}
	return p, File, nil
}

// Folder returns the path of entry name when it is a real folder: ENOTFOUND
// when there is none, EINVALID when it is a symbolic link or not a folder.
func (d Dir) Folder(name string) (string, error) {
	p, kind, err := d.Stat(name)
	switch {
	case err != nil:
		return "", err
	case kind == Missing:
		return "", jarvisbot.Errorf(jarvisbot.ENOTFOUND, "there is no %s %q in %s", d.what, name, d.path)
	case kind == Link:
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "%s is a symbolic link: jarvisbot does not follow a %s folder out of %s; copy the folder there instead", p, d.what, d.path)
	case kind == File:
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "%s is not a folder: a %s is a folder", p, d.what)
	}
	return p, nil
}

// Names returns the names of the real folders in d that pass Check, sorted,
// and apart from them the folders whose names do not, for the caller to
// report; hidden folders (".git", a staging folder such as ".install-123"),
// links and files are in neither. A missing parent folder holds none.
func (d Dir) Names() (names, refused []string, err error) {
	if d.err != nil {
		return nil, nil, d.err
	}
	entries, err := os.ReadDir(d.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot read %s: %w", d.path, err)
	}
	for _, e := range entries {
		switch {
		case !e.IsDir() || e.Type()&fs.ModeSymlink != 0 || strings.HasPrefix(e.Name(), "."):
		case d.Check(e.Name()) == nil:
			names = append(names, e.Name())
		default:
			refused = append(refused, e.Name())
		}
	}
	return names, refused, nil
}

// Remove deletes entry name, which must exist: a folder with everything in
// it, a symbolic link as the link alone (what it leads to is untouched).
// It works through an os.Root on the parent, so that nothing it deletes is
// outside it even if the entry is swapped for a link meanwhile. It reports
// whether the entry was a link.
func (d Dir) Remove(name string) (link bool, err error) {
	_, kind, err := d.Stat(name)
	if err != nil {
		return false, err
	}
	if kind == Missing {
		return false, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "there is no %s %q in %s", d.what, name, d.path)
	}
	root, err := os.OpenRoot(d.path)
	if err != nil {
		return false, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot open %s: %w", d.path, err)
	}
	defer root.Close()
	if kind == Link {
		err = root.Remove(name)
	} else {
		err = root.RemoveAll(name)
	}
	if err != nil {
		return false, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot remove %s from %s: %w", name, d.path, err)
	}
	return kind == Link, nil
}

// Move moves the real folder name of d into to under the same name, which
// must be free there. A link is refused, not moved.
func (d Dir) Move(name string, to Dir) (string, error) {
	from, err := d.Folder(name)
	if err != nil {
		return "", err
	}
	dest, kind, err := to.Stat(name)
	switch {
	case err != nil:
		return "", err
	case kind != Missing:
		return "", jarvisbot.Errorf(jarvisbot.ECONFLICT, "a %s named %q exists already at %s", to.what, name, dest)
	}
	if err := os.MkdirAll(to.path, 0o700); err != nil {
		return "", jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "create %s: %w", to.path, err)
	}
	// Rename never follows a link in its last element: were the folder
	// swapped for one now, the link would move, not what it leads to.
	if err := os.Rename(from, dest); err != nil {
		return "", jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "move %s to %s: %w", from, dest, err)
	}
	return dest, nil
}
