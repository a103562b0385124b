package catalog_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/catalog"
)

// twoOfAKind holds two music services with the same usage card, each of
// its own store plugin, and a calendar.
func twoOfAKind(t *testing.T) *catalog.Plan {
	t.Helper()
	c := catalog.New()
	for _, s := range []catalog.Server{
		{ID: "sonora", Title: "Sonora", Plugin: "spotify", Card: []string{"music", "song", "playlist"}},
		{ID: "vidtube", Title: "Vidtube", Plugin: "youtube-music", Card: []string{"music", "song", "playlist"}},
		{ID: "cal", Title: "Cal", Plugin: "google-calendar", Card: []string{"calendar", "appointment"}},
	} {
		s.Connected = true
		if err := c.SetServer(s, []catalog.SnapshotTool{{Name: "play"}, {Name: "search"}}); err != nil {
			t.Fatal(err)
		}
	}
	return c.View().Plan(catalog.Policy{Agent: "default"})
}

// TestTieBreakPreferenceThenLastUseC5: two services of one kind matched by
// the same words: the owner's newest mark wins, else the one used last;
// route says which won and why; with nothing to tell them apart, or when
// the message names one, there is no tie to break.
func TestTieBreakPreferenceThenLastUseC5(t *testing.T) {
	pl := twoOfAKind(t)
	t0 := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name   string
		msg    string
		prefer *catalog.Preferences
		want   []string
		why    string // in the winner's because
	}{
		{"no preference, no use: both", "Play a song from my running playlist", &catalog.Preferences{}, []string{"sonora", "vidtube"}, ""},
		{"nil preferences: both", "Play a song from my running playlist", nil, []string{"sonora", "vidtube"}, ""},
		{"marked plugin wins", "Play a song from my running playlist",
			&catalog.Preferences{Marked: map[string]time.Time{"plugin:youtube-music": t0}}, []string{"vidtube"}, "won the tie with sonora: preferred by the owner"},
		{"newest mark wins", "Play a song from my running playlist",
			&catalog.Preferences{Marked: map[string]time.Time{"plugin:youtube-music": t0, "mcp:sonora": t0.Add(time.Hour)}}, []string{"sonora"}, "preferred by the owner"},
		{"last used wins without a mark", "Play a song from my running playlist",
			&catalog.Preferences{Used: map[string]time.Time{"mcp:sonora": t0.Add(time.Hour), "mcp:vidtube": t0}}, []string{"sonora"}, "won the tie with vidtube: used last"},
		{"a mark beats a later use", "Play a song from my running playlist",
			&catalog.Preferences{Marked: map[string]time.Time{"plugin:youtube-music": t0}, Used: map[string]time.Time{"mcp:sonora": t0.Add(time.Hour)}}, []string{"vidtube"}, "preferred by the owner"},
		{"named: no tie to break", "Play a song on Sonora",
			&catalog.Preferences{Marked: map[string]time.Time{"plugin:youtube-music": t0}}, []string{"sonora", "vidtube"}, ""},
		{"other kinds untouched", "Play a song and add an appointment to my calendar",
			&catalog.Preferences{Used: map[string]time.Time{"mcp:vidtube": t0}}, []string{"cal", "vidtube"}, "used last"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tu := catalog.Turn{Prefer: tt.prefer}
			pl.Turn(tt.msg, &tu)
			var got []string
			var because string
			var tie *catalog.Tie
			for _, ch := range tu.Explain() {
				if ch.Offered {
					got = append(got, ch.Server)
					if ch.Tie != nil {
						because, tie = ch.Because, ch.Tie
					}
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("offered %v, want %v (%v)", got, tt.want, tu.Explain())
			}
			if tt.why == "" {
				if tie != nil {
					t.Errorf("tie %+v where none was to break", tie)
				}
				return
			}
			if !strings.Contains(because, tt.why) || !slices.Contains(tt.want, tie.Winner) {
				t.Errorf("because %q, tie %+v; want %q", because, tie, tt.why)
			}
			for _, ch := range tu.Explain() {
				if !ch.Offered && ch.Tie != nil && !strings.Contains(ch.Because, "lost the tie to "+tie.Winner) {
					t.Errorf("loser %s: because %q", ch.Server, ch.Because)
				}
			}
			var tools int
			for _, cp := range tu.Tools {
				if cp.Kind == catalog.KindMCP {
					tools++
				}
			}
			if tools != 2*len(tt.want) {
				t.Errorf("%d MCP tools offered, want the winner's only", tools)
			}
		})
	}
}

// TestUsageFromToolsC5: the activity board's tool ids count for their
// server or plugin.
func TestUsageFromToolsC5(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	v := twoOfAKind(t).View()
	got := catalog.UsageFromTools(map[string]time.Time{
		"mcp:sonora/play": t0, "mcp:sonora/search": t0.Add(time.Hour), "plugin:spotify": t0, "builtin:wiki": t0, "nonsense": t0,
		"mcp:gone/x": t0,
	}, v)
	if len(got) != 3 || !got["mcp:sonora"].Equal(t0.Add(time.Hour)) || !got["plugin:spotify"].Equal(t0.Add(time.Hour)) || !got["mcp:gone"].Equal(t0) {
		t.Errorf("usage %v", got)
	}
}

// TestLazyPreferencesReadOnlyForATieC5: a turn's preferences are read at
// its first tie and only then (reading last use scans the activity board),
// once however many ties follow; a failed read (nil) breaks no tie.
func TestLazyPreferencesReadOnlyForATieC5(t *testing.T) {
	reads := 0
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	p := catalog.Lazy(func() *catalog.Preferences {
		reads++
		return &catalog.Preferences{Marked: map[string]time.Time{"plugin:b": at}}
	})
	if _, ok := p.Break([]catalog.Contender{{Name: "a", Plugin: "a"}}); ok || reads != 0 {
		t.Fatalf("one contender is no tie: broken %v, %d reads", ok, reads)
	}
	pair := []catalog.Contender{{Name: "a", Plugin: "a"}, {Name: "b", Plugin: "b"}}
	for range 2 {
		if tie, ok := p.Break(pair); !ok || tie.Winner != "b" {
			t.Errorf("tie %+v, %v; want b preferred", tie, ok)
		}
	}
	if reads != 1 {
		t.Errorf("%d reads for two ties, want 1", reads)
	}
	if _, ok := catalog.Lazy(func() *catalog.Preferences { return nil }).Break(pair); ok {
		t.Error("a failed read broke a tie")
	}
}
