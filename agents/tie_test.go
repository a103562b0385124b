package agents

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/skills"
)

// TestTurnBreaksManualTieAsRouteDoesC5: two connected plugins of one kind
// whose manuals match a message equally tie; the turn lets the one the
// owner prefers win, as `route` explains it: only the winner's manual
// enters and only its server's tools are offered. Without a preference
// both manuals enter and neither brings its server (the tie stays).
func TestTurnBreaksManualTieAsRouteDoesC5(t *testing.T) {
	manual := func(plugin string) *skills.Skill {
		return &skills.Skill{Name: plugin, Plugin: plugin, Does: skills.KindTools,
			Description: "Use when the owner wants to hear songs, albums or playlists.",
			Words:       []string{"song", "album", "playlist", "music"}, Body: "Use the " + plugin + " tools."}
	}
	for _, tt := range []struct {
		name        string
		prefer      string
		wantSkills  []string
		wantServers []string
	}{
		{"no preference: the tie stays", "", []string{"skill:tunes-a", "skill:tunes-b"}, nil},
		{"the owner prefers tunes-b", "tunes-b", []string{"skill:tunes-b"}, []string{"tunes-b"}},
		{"the owner prefers tunes-a", "tunes-a", []string{"skill:tunes-a"}, []string{"tunes-a"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, "anthropic")
			for _, p := range []string{"tunes-a", "tunes-b"} {
				if err := e.catalog.SetServer(catalog.Server{ID: p, Title: p, Plugin: p, Connected: true},
					[]catalog.SnapshotTool{{Name: "start_playback", Description: "Start playing."}}); err != nil {
					t.Fatal(err)
				}
			}
			enabled := []*skills.Skill{manual("tunes-a"), manual("tunes-b"), humanizer, calendarManual}
			e.rt.Skills = func(context.Context, string) (*skills.Ranker, error) { return skills.NewRanker(enabled), nil }
			e.rt.Prefer = func(context.Context, *catalog.View) (*catalog.Preferences, error) {
				p := &catalog.Preferences{Marked: map[string]time.Time{}, Used: map[string]time.Time{}}
				if tt.prefer != "" {
					p.Marked["plugin:"+tt.prefer] = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
				}
				return p, nil
			}
			e.llm.Push(fakellm.Step{Text: "Playing."})
			r := e.turnAs(t, "default", "play the album with that song")
			got := slices.Clone(r.Skills)
			slices.Sort(got)
			if !slices.Equal(got, tt.wantSkills) {
				t.Errorf("skills entering: %v, want %v", got, tt.wantSkills)
			}
			var servers []string
			for _, id := range r.Tools {
				if rest, ok := strings.CutPrefix(id, "mcp:"); ok {
					servers = append(servers, strings.SplitN(rest, "/", 2)[0])
				}
			}
			servers = slices.Compact(servers)
			if !slices.Equal(servers, tt.wantServers) {
				t.Errorf("servers offered: %v, want %v", servers, tt.wantServers)
			}
		})
	}
}
