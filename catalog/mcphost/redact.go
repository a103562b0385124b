package mcphost

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/jarvisbot/jarvisbot"
)

// minSecret is the shortest value redacted. Shorter ones cannot be told
// from ordinary words: replacing every "on" would hide the message and
// still not protect such a value.
const minSecret = 4

// redactor removes from error messages the secret values jarvisbot handed
// a server (X3): what ${NAME} references in its env and headers resolved
// to, and its header values. A server may print them on stderr, echo them
// in an error, or crash with them in its last words; the messages that
// quote it reach logs, the terminal and the chat.
type redactor struct {
	mu     sync.Mutex // a session's end may be explained while a fallback dial adds
	refs   []secret   // values of ${NAME} references, longest first
	wholes []secret   // whole env and header values, longest first
}

type secret struct{ value, label string }

// add records a value a ${NAME} reference resolved to, labelled "${NAME}".
func (r *redactor) add(value, label string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refs = addSecret(r.refs, value, label)
}

// addWhole records a whole setting ("Bearer …"); references inside it are
// replaced first, so a message names the reference where it can.
func (r *redactor) addWhole(value, label string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.wholes = addSecret(r.wholes, value, label)
}

func addSecret(list []secret, value, label string) []secret {
	if len(value) < minSecret {
		return list
	}
	// As the value is, and as Go or JSON quoting shows it inside a message
	// (a stdout line quoted with %q, a JSON error body).
	spellings := []string{value, strings.Trim(strconv.Quote(value), `"`)}
	if j, err := json.Marshal(value); err == nil {
		spellings = append(spellings, strings.Trim(string(j), `"`))
	}
	for _, v := range spellings {
		if !slices.ContainsFunc(list, func(s secret) bool { return s.value == v }) {
			list = append(list, secret{v, label})
		}
	}
	slices.SortStableFunc(list, func(a, b secret) int { return cmp.Compare(len(b.value), len(a.value)) })
	return list
}

// text returns s with every secret replaced by its label.
func (r *redactor) text(s string) string {
	if r == nil {
		return s
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, list := range [][]secret{r.refs, r.wholes} {
		for _, sec := range list {
			s = strings.ReplaceAll(s, sec.value, "[redacted "+sec.label+"]")
		}
	}
	return s
}

// err returns err with its message redacted, keeping its code and its
// chain for errors.Is.
func (r *redactor) err(err error) error {
	if err == nil || r == nil {
		return err
	}
	msg := err.Error()
	red := r.text(msg)
	if red == msg {
		return err
	}
	return &jarvisbot.Error{Code: jarvisbot.ErrorCode(err), Message: red, Err: err}
}

// recording wraps lookup so that every value it resolves is redacted.
func (r *redactor) recording(lookup Lookup) Lookup {
	return func(name string) (string, bool) {
		if lookup == nil {
			return "", false
		}
		v, ok := lookup(name)
		if ok {
			r.add(v, "${"+name+"}")
		}
		return v, ok
	}
}
