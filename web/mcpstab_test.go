package web

import (
	"reflect"
	"testing"
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
