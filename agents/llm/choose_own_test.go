package llm

import (
	"context"
	"testing"
)

// TestChooseOwnToolsM5: own_tools of the installation or of an agent's
// entry reaches a coding CLI's choice.
func TestChooseOwnToolsM5(t *testing.T) {
	env := Env{Getenv: func(string) string { return "" }, Secret: func(context.Context, string) string { return "" }}
	for _, tc := range []struct {
		name      string
		base, own Settings
		want      bool
	}{
		{"off by default", Settings{Name: "claude-code"}, Settings{}, false},
		{"the installation's", Settings{Name: "claude-code", OwnTools: true}, Settings{}, true},
		{"an agent's", Settings{Name: "claude-code"}, Settings{OwnTools: true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch, err := Choose(context.Background(), tc.base.Over(tc.own), env)
			if err != nil || ch.CLI != "claude-code" || ch.OwnTools != tc.want {
				t.Errorf("choice %+v, %v; want own tools %v", ch, err, tc.want)
			}
		})
	}
}
