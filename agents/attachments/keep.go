package attachments

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Keeper keeps the files the owner sent under Dir, one folder a chat, so
// that a later turn (and the owner) can find "the contract I sent
// yesterday". Each chat's folder holds at most Quota bytes: the oldest
// files go first.
type Keeper struct {
	Dir   string // DATADIR/files
	Quota int64  // per chat, in bytes; 0 keeps nothing
}

// Keep writes data for chat under a name made of the day, the content's
// hash and the file's own name, and returns its path relative to the
// keeper's parent folder ("files/telegram_42/20261206-1a2b3c4d-contract.pdf").
// The same file sent twice, or a turn retried, is kept once.
func (k *Keeper) Keep(chat, name string, data []byte, now time.Time) (string, error) {
	if k == nil || k.Quota <= 0 {
		return "", nil
	}
	if int64(len(data)) > k.Quota {
		return "", fmt.Errorf("keeping a file of %d MB: the quota of a chat (files.quota_mb) is %d MB", len(data)>>20, k.Quota>>20)
	}
	folder := plainName(chat)
	dir := filepath.Join(k.Dir, folder)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("keeping a file in %s: %w", dir, err)
	}
	sum := sha256.Sum256(data)
	tag := hex.EncodeToString(sum[:4])
	base := plainName(name)
	if base == "" {
		base = "photo.jpg"
	}
	rel := filepath.Join(filepath.Base(k.Dir), folder)
	if have, _ := filepath.Glob(filepath.Join(dir, "*-"+tag+"-"+base)); len(have) > 0 {
		return filepath.Join(rel, filepath.Base(have[0])), nil
	}
	file := now.UTC().Format("20060102-150405") + "-" + tag + "-" + base
	tmp, err := os.CreateTemp(dir, ".keep-*")
	if err != nil {
		return "", fmt.Errorf("keeping a file in %s: %w", dir, err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := cmpErr(werr, cerr); err != nil {
		// A half-written copy left behind would be counted in the quota.
		return "", fmt.Errorf("keeping %s in %s: %w", base, dir, errors.Join(err, os.Remove(tmp.Name())))
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, file)); err != nil {
		return "", fmt.Errorf("keeping %s in %s: %w", base, dir, errors.Join(err, os.Remove(tmp.Name())))
	}
	if err := k.prune(dir, file); err != nil {
		return "", err
	}
	return filepath.Join(rel, file), nil
}

func cmpErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// prune removes the chat's oldest files until the folder is within the
// quota; the file just kept stays. Names start with the time they were
// kept, and ReadDir lists them sorted, so their order is their age.
func (k *Keeper) prune(dir, keep string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("reading %s to keep it within its quota: %w", dir, err)
	}
	sizes := map[string]int64{}
	var names []string
	var total int64
	for _, e := range entries {
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // gone meanwhile
		}
		names = append(names, e.Name())
		sizes[e.Name()] = info.Size()
		total += info.Size()
	}
	for _, name := range names {
		if total <= k.Quota {
			break
		}
		if name == keep {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("dropping the oldest file %s to keep the chat within its quota: %w", name, err)
		}
		total -= sizes[name]
	}
	return nil
}

// plainName is s with every character but letters, digits, '.', '-' and
// '_' replaced by '_', without leading dots and at most 80 bytes: a chat
// id or a file name from outside becomes one plain path segment (X1).
func plainName(s string) string {
	s = filepath.Base(strings.ReplaceAll(s, "\\", "/"))
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := strings.TrimLeft(b.String(), ".")
	if len(out) > 80 {
		ext := filepath.Ext(out)
		if len(ext) > 10 {
			ext = ""
		}
		out = out[:80-len(ext)] + ext
	}
	if out == "" || out == "_" && s == "/" {
		return ""
	}
	return out
}
