package route_test

import (
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/app/route"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/skills"
)

// tiePlanner has two music plugins whose manuals list mostly the same
// words, each with a server the message's words do not reach, and a
// calendar and a task list whose manuals share a word but not a kind.
func tiePlanner(t *testing.T, prefer *catalog.Preferences) route.Planner {
	t.Helper()
	c := catalog.New()
	for _, s := range []catalog.Server{{ID: "sonora-mcp", Plugin: "sonora"}, {ID: "vidtube-mcp", Plugin: "vidtube"}} {
		s.Connected = true
		if err := c.SetServer(s, []catalog.SnapshotTool{{Name: "start_playback"}}); err != nil {
			t.Fatal(err)
		}
	}
	music := []string{"music", "song", "playlist", "album", "artist", "something relaxing", "put something on"}
	list := []*skills.Skill{
		{Name: "sonora", Plugin: "sonora", Description: "Play music on Sonora.", Words: []string{"Sonora"}, Related: append(music, "podcast"), Does: skills.KindTools},
		{Name: "vidtube", Plugin: "vidtube", Description: "Play music on Vidtube.", Words: []string{"Vidtube"}, Related: append(music, "music video"), Does: skills.KindTools},
		{Name: "agenda", Plugin: "agenda", Description: "Appointments in the calendar.", Words: []string{"tomorrow"}, Related: []string{"appointment", "meeting", "tomorrow", "free", "busy"}, Does: skills.KindTools},
		{Name: "chores", Plugin: "chores", Description: "Tasks and to-dos.", Words: []string{"tomorrow"}, Related: []string{"task", "to-do", "tomorrow", "done", "due"}, Does: skills.KindTools},
	}
	return route.Planner{Plan: c.View().Plan(catalog.Policy{Agent: "default"}), Ranker: skills.NewRanker(list), Prefer: prefer}
}

// TestManualTieBreakC5: when the manuals of two plugins of one kind tie,
// the one the owner prefers wins, else the one used last: its manual joins
// and brings its server, the other's does not, and route says so. Manuals
// of different kinds that tie stay unbroken.
func TestManualTieBreakC5(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name, msg  string
		prefer     *catalog.Preferences
		winner     string
		loser, why string
		tied       []string // without a winner: the manuals that tie and both join
	}{
		{"no preference", "put something relaxing on", &catalog.Preferences{}, "", "", "", []string{"skill:sonora", "skill:vidtube"}},
		{"preferred", "put something relaxing on", &catalog.Preferences{Marked: map[string]time.Time{"plugin:vidtube": t0}, Used: map[string]time.Time{"plugin:sonora": t0.Add(time.Hour)}},
			"vidtube", "sonora", "preferred by the owner", nil},
		{"used last", "put something relaxing on", &catalog.Preferences{Used: map[string]time.Time{"plugin:sonora": t0.Add(time.Hour), "mcp:vidtube-mcp": t0}},
			"sonora", "vidtube", "used last", nil},
		{"other kinds", "anything for tomorrow?", &catalog.Preferences{Marked: map[string]time.Time{"plugin:chores": t0}}, "", "", "", []string{"skill:agenda", "skill:chores"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ex := tiePlanner(t, tt.prefer).Explain(tt.msg)
			entry := map[string]route.Skill{}
			for _, s := range ex.Skills {
				entry[s.ID] = s
			}
			offered := map[string]string{}
			for _, m := range ex.MCP {
				if m.Offered {
					offered[m.Server] = m.Because
				}
			}
			if tt.winner == "" {
				a, b := entry[tt.tied[0]], entry[tt.tied[1]]
				if a.Entry != "join" || b.Entry != "join" || max(a.Score, b.Score) >= skills.ManualLead*min(a.Score, b.Score) {
					t.Errorf("no tie to test: %+v, %+v", a, b)
				}
				for _, s := range ex.Skills {
					if s.Tie != nil {
						t.Errorf("%s: tie %+v where none was to break", s.ID, s.Tie)
					}
				}
				if len(offered) != 0 {
					t.Errorf("offered %v", offered)
				}
				return
			}
			win, lose := entry["skill:"+tt.winner], entry["skill:"+tt.loser]
			if win.Entry != "join" || win.Tie == nil || win.Tie.Winner != tt.winner || win.Tie.Why != tt.why {
				t.Errorf("winner %+v (tie %+v)", win, win.Tie)
			}
			if lose.Entry != "none" || lose.Tie == nil || !strings.Contains(lose.Tie.String(tt.loser), "lost the tie to "+tt.winner) {
				t.Errorf("loser %+v (tie %+v)", lose, lose.Tie)
			}
			if _, ok := offered[tt.winner+"-mcp"]; !ok || len(offered) != 1 {
				t.Errorf("offered %v, want %s-mcp only", offered, tt.winner)
			}
		})
	}
}
