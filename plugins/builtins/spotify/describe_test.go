package spotify

import (
	"context"
	"encoding/json"
	"testing"
)

// TestDescribeCH2: the player's tools describe a call for its approval
// request, should the owner raise one to ask: what happens and what plays
// where.
func TestDescribeCH2(t *testing.T) {
	tools := map[string]func(context.Context, json.RawMessage) (string, bool){}
	for _, tl := range Tools(Options{}) {
		if tl.Describe == nil {
			continue
		}
		tools[tl.Name] = func(ctx context.Context, raw json.RawMessage) (string, bool) {
			d, ok := tl.Describe(ctx, raw)
			got := d.What
			for _, l := range d.Lines {
				got += "\n" + l.Label + ": " + l.Value
			}
			return got, ok
		}
	}
	cases := []struct {
		tool, args, want string
		ok               bool
	}{
		{"play", `{"query":"blue in green","device":"Kitchen"}`, "Start or resume playback on Spotify\nSearch: blue in green\nDevice: Kitchen", true},
		{"set_volume", `{"percent":30}`, "Set the Spotify volume\nVolume: 30%", true},
		{"play_playlist", `{"playlist":"Focus"}`, "Play a playlist on Spotify\nPlaylist: Focus", true},
		{"queue", `{"uri":"spotify:track:1"}`, "Add a track to the Spotify queue\nItem: spotify:track:1", true},
		{"pause", `{}`, "Pause Spotify", true},
		{"pause", `{"volume":3}`, "", false},
	}
	for _, c := range cases {
		describe, has := tools[c.tool]
		if !has {
			t.Fatalf("%s does not describe its calls", c.tool)
		}
		got, ok := describe(context.Background(), json.RawMessage(c.args))
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("%s %s:\ngot (%v)\n%s\nwant\n%s", c.tool, c.args, ok, got, c.want)
		}
	}
}
