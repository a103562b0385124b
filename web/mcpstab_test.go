package web

import (
	"reflect"
	"testing"

	"github.com/jarvisbot/jarvisbot/app"
	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
)

// TestSplitCommandLineM1: the add form's command line is split as a
// shell splits plain words, with nothing expanded.
func TestSplitCommandLineM1(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		bad  bool
	}{
		{in: "npx -y  @scope/server", want: []string{"npx", "-y", "@scope/server"}},
		{in: `srv --name "two words" 'it''s' a\ b ""`, want: []string{"srv", "--name", "two words", "its", "a b", ""}},
		{in: `srv $HOME ${TOKEN}`, want: []string{"srv", "$HOME", "${TOKEN}"}},
		{in: `srv "open`, bad: true},
		{in: `srv trailing\`, bad: true},
	} {
		got, err := splitCommandLine(tc.in)
		if (err != nil) != tc.bad || (!tc.bad && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("%q: %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestMCPRowAnswerM1: what the host says of a server, in the list's
// answer column.
func TestMCPRowAnswerM1(t *testing.T) {
	for _, tc := range []struct {
		name string
		row  app.ServerRow
		want MCPRow
	}{
		{"off", app.ServerRow{Name: "a", Tools: 3}, MCPRow{Name: "a", Tools: 3}},
		{"not started", app.ServerRow{Name: "a", Enabled: true, Running: &app.Running{}},
			MCPRow{Name: "a", On: true, Answer: "not started in this process (restart jarvisbot serve, or switch it off and on)"}},
		{"up", app.ServerRow{Name: "a", Enabled: true, Tools: 3, Running: &app.Running{Started: true, State: mcphost.StateUp, Tools: 5}},
			MCPRow{Name: "a", On: true, Up: true, Tools: 5, Answer: "up"}},
		{"down", app.ServerRow{Name: "a", Enabled: true, Running: &app.Running{Started: true, State: mcphost.StateDown, Why: "exited"}},
			MCPRow{Name: "a", On: true, Answer: "down: exited"}},
		{"starting", app.ServerRow{Name: "a", Enabled: true, Running: &app.Running{Started: true, State: mcphost.StateStarting}},
			MCPRow{Name: "a", On: true, Answer: "starting"}},
		{"idle keeps its listed tools", app.ServerRow{Name: "a", Enabled: true, Tools: 7, Running: &app.Running{Started: true, State: mcphost.StateIdle, Tools: 7}},
			MCPRow{Name: "a", On: true, Tools: 7, Answer: "idle: starts when a request needs it (its tools are offered as last listed)"}},
	} {
		if got := mcpRowOf(tc.row); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
