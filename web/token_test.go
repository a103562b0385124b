package web

import (
	"regexp"
	"testing"
)

// A sign-in link goes through the chat's Markdown (/dashboard): its token
// must hold nothing a formatter takes for markup ("_", "*", "~", "`"), or a
// link arrives broken now and then. Hex holds none.
func TestTokensAreInertInChatFormatting(t *testing.T) {
	inert := regexp.MustCompile(`^[0-9a-f]{64}$`)
	seen := map[string]bool{}
	for range 200 {
		tok, err := newToken()
		if err != nil {
			t.Fatal(err)
		}
		if !inert.MatchString(tok) {
			t.Fatalf("token %q is not 64 hex digits", tok)
		}
		if seen[tok] {
			t.Fatalf("token %q made twice", tok)
		}
		seen[tok] = true
	}
}
