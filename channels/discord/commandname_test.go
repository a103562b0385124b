package discord

import (
	"strings"
	"testing"
)

func TestCommandName(t *testing.T) {
	for name, want := range map[string]bool{
		"pair": true, "new-chat": true, "agent_2": true, strings.Repeat("a", 32): true,
		"": false, strings.Repeat("a", 33): false, "Pair": false, "pair me": false, "päir": false, "a.b": false,
	} {
		if got := commandName(name); got != want {
			t.Errorf("commandName(%q) = %v, want %v", name, got, want)
		}
	}
}
