package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// maxName is the longest tool name both APIs accept.
const maxName = 64

// WireName turns a capability id into a tool name the APIs accept
// (letters, digits, '_' and '-', at most 64): "mcp:github/create_issue"
// becomes "mcp__github__create_issue". A name that would be too long keeps
// its start and gains a short hash, so it stays unique and stable across
// turns, which the prompt cache needs.
func WireName(id string) string {
	var b strings.Builder
	for _, r := range id {
		switch {
		case r == ':' || r == '/':
			b.WriteString("__")
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := b.String()
	if len(name) <= maxName && name == strings.ReplaceAll(strings.ReplaceAll(id, ":", "__"), "/", "__") {
		return name
	}
	sum := sha256.Sum256([]byte(id))
	h := hex.EncodeToString(sum[:4])
	if len(name) > maxName-9 {
		name = name[:maxName-9]
	}
	return name + "_" + h
}
