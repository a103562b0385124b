package telegram

import (
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/internal/names"
)

func TestCommandName(t *testing.T) {
	for name, want := range map[string]bool{
		"pair": true, "agent_2": true, strings.Repeat("a", 32): true,
		"": false, strings.Repeat("a", 33): false, "new-chat": false, "Pair": false, "pair me": false, "päir": false,
	} {
		if got := names.Command(name, commandPunct); got != want {
			t.Errorf("names.Command(%q, %q) = %v, want %v", name, commandPunct, got, want)
		}
	}
}
