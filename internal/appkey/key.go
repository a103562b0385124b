// Package appkey is how an app that uses jarvisbot's MCP surface is known
// (M4): its key (made once, shown once, kept only as its hash), the scope
// the key carries, and the config snippet each MCP client needs to reach
// jarvisbot with it.
//
// It is a leaf so that both sides of the key can use it: the app layer
// makes keys and snippets (jarvisbot apps add / config), the MCP surface
// checks keys and filters tools by scope (mcp/apps, mcp/surface).
package appkey

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"strings"

	"github.com/jarvisbot/jarvisbot"
)

// KeyPrefix starts every app key, so that a leaked key is recognisable
// (by the owner, by secret scanners) as a jarvisbot app key.
const KeyPrefix = "jbk_"

// keyBytes is the key's randomness: 256 bits, beyond guessing, which is
// also why an unsalted SHA-256 is enough to keep it.
const keyBytes = 32

// keyEncoding is lowercase base32 without padding: no characters that
// shells, URLs or headers treat specially, and one word to double-click.
var keyEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// keyLen is the length of every key NewKey makes: the prefix and 32 bytes
// in unpadded base32 (ceil(256/5) characters).
const keyLen = len(KeyPrefix) + (keyBytes*8+4)/5

// EnvKey is the variable the owner's clients read the key from.
const EnvKey = "JARVIS_APP_KEY"

// NewKey returns a new random app key. crypto/rand does not fail on the
// systems Go supports (it ends the program if the system's source does).
func NewKey() string {
	b := make([]byte, keyBytes)
	_, _ = rand.Read(b)
	return KeyPrefix + keyEncoding.EncodeToString(b)
}

// Hash is what the store keeps of a key: its SHA-256 in lowercase hex.
func Hash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// Shaped reports whether key has the shape of the keys NewKey makes: one
// that does not was never made by jarvisbot, and needs no store look-up.
func Shaped(key string) bool {
	return len(key) == keyLen && strings.HasPrefix(key, KeyPrefix)
}

// Scope is what an app's key allows.
type Scope string

// The scopes, each including the one before.
const (
	ScopeRead Scope = "read" // sees
	ScopeWork Scope = "work" // also talks to agents, posts jobs, runs scheduled skills
	ScopeFull Scope = "full" // also answers approvals and pauses everything
)

// ParseScope reads a scope name as the owner types it.
func ParseScope(s string) (Scope, error) {
	switch sc := Scope(strings.ToLower(strings.TrimSpace(s))); sc {
	case ScopeRead, ScopeWork, ScopeFull:
		return sc, nil
	}
	return "", jarvisbot.Errorf(jarvisbot.EINVALID, "unknown scope %q: use read, work or full", s)
}

// Allows reports whether a key of scope have may use a tool of scope need.
// An unknown scope allows nothing.
func (have Scope) Allows(need Scope) bool {
	rank := map[Scope]int{ScopeRead: 1, ScopeWork: 2, ScopeFull: 3}
	return rank[have] > 0 && rank[have] >= rank[need]
}

// Says is what a scope allows, in words for the owner.
func (s Scope) Says() string {
	switch s {
	case ScopeRead:
		return "sees agents, jobs, approvals, skills and activity; changes nothing"
	case ScopeWork:
		return "also talks to agents, posts jobs and runs scheduled skills"
	case ScopeFull:
		return "also answers approvals (never those its own requests raised) and pauses everything"
	}
	return "nothing"
}
