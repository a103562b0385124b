package main

import (
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/app/route"
)

// TestPreferBreaksManualTieC5: with Spotify and YouTube Music both
// connected, a music request ties their manuals; `plugins prefer` makes
// the marked one win, route says so in text and JSON, and `--clear`
// takes it back. `mcp prefer` of an unknown server is refused.
func TestPreferBreaksManualTieC5(t *testing.T) {
	e := newTestEnv(t)
	msg := "play some relaxing music"
	skillsOf := func() map[string]route.Skill {
		t.Helper()
		code, out, errOut := e.jarvis(t, "", "route", "--json", "--connect-all", msg)
		if code != 0 {
			t.Fatalf("route: exit %d: %s", code, errOut)
		}
		m := map[string]route.Skill{}
		for _, s := range decodeRoutes(t, out)[0].Skills {
			m[s.ID] = s
		}
		return m
	}
	before := skillsOf()
	if before["skill:spotify"].Tie != nil || before["skill:youtube-music"].Entry != "join" || before["skill:spotify"].Entry != "join" {
		t.Fatalf("before any preference: %+v", before)
	}
	if code, out, errOut := e.jarvis(t, "", "plugins", "prefer", "youtube-music"); code != 0 || !strings.Contains(out, "youtube-music is now preferred") {
		t.Fatalf("plugins prefer: exit %d: %s %s", code, out, errOut)
	}
	after := skillsOf()
	yt, sp := after["skill:youtube-music"], after["skill:spotify"]
	if yt.Entry != "join" || yt.Tie == nil || yt.Tie.Winner != "youtube-music" || yt.Tie.Why != "preferred by the owner" || sp.Entry != "none" || sp.Tie == nil {
		t.Errorf("after prefer: youtube-music %+v (%+v), spotify %+v", yt, yt.Tie, sp)
	}
	_, text, _ := e.jarvis(t, "", "route", "--connect-all", msg)
	if !strings.Contains(text, "won the tie with spotify: preferred by the owner") || !strings.Contains(text, "lost the tie to youtube-music") {
		t.Errorf("route text says nothing of the tie:\n%s", text)
	}
	e.mustJarvis(t, "", "plugins", "prefer", "--clear", "youtube-music")
	if s := skillsOf()["skill:spotify"]; s.Tie != nil || s.Entry != "join" {
		t.Errorf("after --clear: %+v", s)
	}
	if code, _, errOut := e.jarvis(t, "", "mcp", "prefer", "nosuch"); code == 0 || !strings.Contains(errOut, "no MCP server named nosuch") {
		t.Errorf("mcp prefer nosuch: exit %d: %s", code, errOut)
	}
}
