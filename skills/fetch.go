package skills

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/leftover"
)

// FetchTimeout bounds downloading a SKILL.md from a URL.
const FetchTimeout = 20 * time.Second

// Incoming is a skill read for installation (S6), with its text as it
// came, for the owner to read in full before saying yes (X2).
type Incoming struct {
	*Skill
	Original string
}

// ImportFrom reads a SKILL.md for installation from a skill folder, the
// file itself, or an https URL (http only to this machine) fetched with
// client (nil: http.DefaultClient), with the same checks as Import and
// the size limit of FileLimit.
func ImportFrom(ctx context.Context, client *http.Client, src string) (Incoming, error) {
	if u, err := url.Parse(src); err == nil && (u.Scheme == "https" || u.Scheme == "http") {
		return fetch(ctx, client, u)
	}
	dir := src
	if fi, err := os.Stat(src); err == nil && !fi.IsDir() {
		if filepath.Base(src) != FileName {
			return Incoming{}, jarvisbot.Errorf(jarvisbot.EINVALID, "%s is not a %s: give its folder or the file itself", src, FileName)
		}
		dir = filepath.Dir(src)
	}
	s, data, err := ImportDir(dir)
	if err != nil {
		return Incoming{}, err
	}
	return Incoming{Skill: s, Original: string(data)}, nil
}

func fetch(ctx context.Context, client *http.Client, u *url.URL) (Incoming, error) {
	if u.Scheme != "https" && !isLoopbackHost(u.Hostname()) {
		return Incoming{}, jarvisbot.Errorf(jarvisbot.EINVALID, "%s: use an https URL", u.Redacted())
	}
	if pathBase(u.Path) != FileName {
		return Incoming{}, jarvisbot.Errorf(jarvisbot.EINVALID, "%s does not end in /NAME/%s: give the raw file's URL", u.Redacted(), FileName)
	}
	data, err := download(ctx, client, u)
	if err != nil {
		return Incoming{}, err
	}
	// The URL's folder is the skill's folder, for the name check.
	s, err := Import(strings.TrimPrefix(u.Redacted(), u.Scheme+"://"), data)
	if err != nil {
		return Incoming{}, err
	}
	return Incoming{Skill: s, Original: string(data)}, nil
}

// download reads u's body, refusing more than FileLimit allows without
// reading all of it.
func download(ctx context.Context, client *http.Client, u *url.URL) ([]byte, error) {
	if client == nil {
		client = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "%s: %w", u.Redacted(), err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "download %s: %w", u.Redacted(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "download %s: the server answered %s", u.Redacted(), resp.Status)
	}
	limit := FileLimit()
	if err := limit.Check(u.Redacted(), resp.ContentLength); err != nil {
		return nil, err
	}
	data, err := limit.ReadAll(resp.Body, u.Redacted())
	if err != nil {
		if jarvisbot.ErrorCode(err) == jarvisbot.EINVALID {
			return nil, err
		}
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "download %s: %w", u.Redacted(), err)
	}
	return data, nil
}

func pathBase(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

func isLoopbackHost(h string) bool { return h == "localhost" || h == "127.0.0.1" || h == "::1" }

// Install writes s as the skill folder dest atomically: into a temporary
// folder beside it, then renamed, so a failure leaves nothing half-written.
func Install(dest string, s *Skill) error {
	parent := filepath.Dir(dest)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", parent, err)
	}
	tmp, err := os.MkdirTemp(parent, ".install-")
	if err != nil {
		return fmt.Errorf("create a folder in %s: %w", parent, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, FileName), s.Render(), 0o600); err != nil {
		return errors.Join(fmt.Errorf("write the skill: %w", err), leftover.Remove(tmp))
	}
	if err := os.Rename(tmp, dest); err != nil {
		return errors.Join(fmt.Errorf("install the skill at %s: %w", dest, err), leftover.Remove(tmp))
	}
	return nil
}

// EntryText says, for the consent view, how an installed skill may enter
// turns (S4).
func EntryText(s *Skill) string {
	switch EntryFor(s, EnterAt) {
	case EntryTakeOver:
		return "add instructions only, so it may take over a turn when its words match"
	case EntryJoin:
		return "use tools, so it joins a turn only while the model can decline it"
	}
	return "never start by itself: you or the model name it"
}
