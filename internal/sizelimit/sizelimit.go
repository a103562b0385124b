// Package sizelimit reads what comes from outside jarvisbot (a SKILL.md, a
// plugin's files, the config file, an mcp.json to import, a catalog
// snapshot) under a size limit, so that a huge or endless file costs an
// error that names it instead of the process's memory.
//
// Every reader of such a file goes through a Limit: it says what the file
// is and how large it may be, and its errors name the file, its size (or
// that it is larger than the limit, when only a stream was read) and the
// limit, as EINVALID.
//
// It serves X1 and X4: nothing read from outside is unbounded.
package sizelimit

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/jarvisbot/jarvisbot"
)

// Limit is the most bytes one kind of file may hold.
type Limit struct {
	What string // what the file is, with an article: "a SKILL.md", "the config file"
	Max  int64
	// Hint says what to do about a file over the limit; optional.
	Hint string
}

// TooLarge is the cause of every error a Limit returns for a file over it.
// Its text leaves the file's name out, for callers that name it already
// (the plugin validator's problems do).
type TooLarge struct {
	Limit
	Size int64 // the file's size, or -1 when only a stream larger than Max was read
}

func (e *TooLarge) Error() string {
	limit := Bytes(e.Max)
	if e.Size >= 0 && Bytes(e.Size) == limit {
		limit = fmt.Sprintf("%s (%d bytes)", limit, e.Max) // "256 KiB" both, rounded
	}
	var msg string
	switch {
	case e.Size >= 1<<10:
		msg = fmt.Sprintf("is too large: %s (%d bytes), where %s may be at most %s", Bytes(e.Size), e.Size, e.What, limit)
	case e.Size >= 0:
		msg = fmt.Sprintf("is too large: %s, where %s may be at most %s", Bytes(e.Size), e.What, limit)
	default:
		msg = fmt.Sprintf("is too large: larger than %s, the most %s may be", limit, e.What)
	}
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

// Check returns the error for a file name of size bytes when that is over
// the limit, else nil.
func (l Limit) Check(name string, size int64) error {
	if size <= l.Max {
		return nil
	}
	return l.fail(name, size)
}

func (l Limit) fail(name string, size int64) error {
	return jarvisbot.Errorf(jarvisbot.EINVALID, "%s %w", name, &TooLarge{Limit: l, Size: size})
}

// ReadAll reads r to its end, or fails as soon as it has read more than
// the limit. name labels the error. When r is a regular file (it has a
// Stat method), one over the limit is refused before it is read, with its
// size. An error reading r is returned as it is, for the caller to say
// what was being read.
func (l Limit) ReadAll(r io.Reader, name string) ([]byte, error) {
	size := int64(-1)
	if f, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			if err := l.Check(name, fi.Size()); err != nil {
				return nil, err
			}
			size = fi.Size()
		}
	}
	lr := io.LimitReader(r, l.Max+1)
	var data []byte
	var err error
	if size >= 0 {
		data, err = readSized(lr, size)
	} else {
		data, err = io.ReadAll(lr)
	}
	if err != nil {
		return nil, err
	}
	if int64(len(data)) <= l.Max {
		return data, nil
	}
	if size <= l.Max {
		size = -1 // it grew while it was read
	}
	return nil, l.fail(name, size)
}

// readSized reads r to its end into a buffer of the size its Stat gave,
// plus a byte to see it end: io.ReadAll's doubling would allocate about
// twice the file, and serve reads its config, skills and manifests at
// every start. A file that grew since is read on, as io.ReadAll would.
func readSized(r io.Reader, size int64) ([]byte, error) {
	data := make([]byte, 0, size+1)
	for {
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // it grew: let append pick the next size
		}
	}
}

// ReadFile reads the file at path. A regular file over the limit is
// refused before it is read; anything else (a pipe, a device) is read
// until it passes the limit. A missing file is an error satisfying
// errors.Is(err, fs.ErrNotExist), for callers to whom that is no fault.
func (l Limit) ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "cannot read %s: %w", path, err)
	}
	defer f.Close()
	return l.ReadOpened(f, path)
}

// ReadOpened reads an opened file (from os.Open, an os.Root or an fs.FS),
// refusing a folder and, before reading, a file over the limit.
func (l Limit) ReadOpened(f fs.File, name string) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "cannot read %s: %w", name, err)
	}
	if fi.IsDir() {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "%s is a folder, not %s", name, l.What)
	}
	data, err := l.ReadAll(f, name)
	if err != nil && jarvisbot.ErrorCode(err) == jarvisbot.EINTERNAL {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "cannot read %s: %w", name, err)
	}
	return data, err
}

// Bytes writes a size for people: "900 bytes", "256 KiB", "1.5 MiB".
func Bytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return trim(float64(n)/(1<<10)) + " KiB"
	case n < 1<<30:
		return trim(float64(n)/(1<<20)) + " MiB"
	}
	return trim(float64(n)/(1<<30)) + " GiB"
}

// trim gives one decimal, and none when it is zero.
func trim(f float64) string {
	s := fmt.Sprintf("%.1f", f)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}
